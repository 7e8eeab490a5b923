import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { chmod, chown, lutimes, mkdir, open, readFile, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Disk } from '../src/store/disk.js';
import { RunStore, type RunFolder } from '../src/store/run-store.js';
import { isRunId, newRunId } from '../src/store/store.js';
import type { StructuredResult } from '../src/present/output-schema.js';
import { startFakeOpenRouter, type FakeOpenRouter } from './support/fake-openrouter.js';
import { startHarness, tempDir } from './support/harness.js';
import { within } from './support/wait.js';

const TWO_HOURS_AGO = new Date(Date.now() - 2 * 60 * 60 * 1000);
const mode = async (file: string) => (await stat(file)).mode & 0o777;

/** An output folder with a `.staging` folder in it, as an earlier run of the server leaves it. */
async function outputWithStaging(): Promise<{ root: string; staging: string }> {
  const root = await tempDir();
  const staging = path.join(root, '.staging');
  await mkdir(staging, { mode: 0o700 });
  return { root, staging };
}

/** A folder that belongs to another user: made and given away when the tests run as root, `/` (root's) otherwise. */
async function someoneElsesFolder(): Promise<string> {
  if (process.getuid?.() !== 0) return '/';
  const dir = await tempDir();
  await chown(dir, 65534, 65534);
  return dir;
}

describe('RunStore deletes only what it created', () => {
  it('sweeps only its own stale temporary files: never a user file, a folder, a link, or a fresh temporary file', async () => {
    const { root, staging } = await outputWithStaging();
    const victim = path.join(await tempDir(), 'precious.txt');
    await writeFile(victim, 'keep me');
    const at = (name: string) => path.join(staging, name);
    await writeFile(at('.final.md.0123abcd.tmp'), 'left by a killed process');
    await writeFile(at('.final.md.89abcdef.tmp'), 'another process is writing this right now');
    await writeFile(at('notes.txt'), 'the user put this here');
    await mkdir(at('.folder.0123abcd.tmp'));
    await writeFile(path.join(at('.folder.0123abcd.tmp'), 'inside.txt'), 'x');
    await symlink(victim, at('.link.0123abcd.tmp'));
    for (const name of ['.final.md.0123abcd.tmp', 'notes.txt', '.folder.0123abcd.tmp'])
      await utimes(at(name), TWO_HOURS_AGO, TWO_HOURS_AGO);
    await lutimes(at('.link.0123abcd.tmp'), TWO_HOURS_AGO, TWO_HOURS_AGO);

    await new RunStore(root).createRun();

    expect((await readdir(staging)).sort()).toEqual(['.final.md.89abcdef.tmp', '.folder.0123abcd.tmp', '.link.0123abcd.tmp', 'notes.txt']);
    expect(await readdir(at('.folder.0123abcd.tmp'))).toEqual(['inside.txt']);
    expect(await readFile(victim, 'utf8')).toBe('keep me');
  });

  it('refuses a .staging that is a symbolic link, and neither sweeps nor writes where it leads', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await writeFile(path.join(elsewhere, 'precious.txt'), 'keep me');
    await utimes(path.join(elsewhere, 'precious.txt'), TWO_HOURS_AGO, TWO_HOURS_AGO);
    await symlink(elsewhere, path.join(root, '.staging'));

    await expect(new RunStore(root).createRun()).rejects.toMatchObject({
      code: 'ERR_STORE_UNSAFE',
      message: expect.stringContaining('symbolic link'),
    });
    expect(await readdir(elsewhere)).toEqual(['precious.txt']);
  });

  it('refuses an output folder that other users can write in, where they could swap a folder under it', async () => {
    const root = await tempDir();
    await chmod(root, 0o777);
    await expect(new RunStore(root).createRun()).rejects.toMatchObject({
      code: 'ERR_STORE_UNSAFE',
      message: expect.stringContaining('chmod go-w'),
    });
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses an output folder that belongs to another user', async () => {
    const root = await someoneElsesFolder();
    await expect(new RunStore(root).createRun()).rejects.toMatchObject({
      code: 'ERR_STORE_UNSAFE',
      message: expect.stringContaining('belongs to another user'),
    });
  });

  it('discards a probe folder by removing only the files it wrote; a folder holding anything else stays', async () => {
    const store = new RunStore(await tempDir());
    const empty = await store.createRun();
    await empty.write('probe.txt', 'ok');
    await empty.discard();
    expect(existsSync(empty.dir)).toBe(false);

    const shared = await store.createRun();
    await shared.write('probe.txt', 'ok');
    await writeFile(path.join(shared.dir, 'user.txt'), 'not the server’s');
    await expect(shared.discard()).rejects.toMatchObject({ code: 'ENOTEMPTY' });
    expect(await readdir(shared.dir)).toEqual(['user.txt']);

    const opened = (await store.openRun(shared.name))!;
    await expect(opened.discard()).rejects.toMatchObject({ code: 'ERR_STORE_UNSAFE' });
  });
});

describe('RunStore: run folders, files and the index', () => {
  it('creates private, time-named run folders (0700) in a missing output folder it creates 0700', async () => {
    const root = path.join(await tempDir(), 'a', 'b', 'runs');
    const store = new RunStore(root);
    const folder = await store.createRun(newRunId(new Date('2026-11-21T13:34:26.123Z')));
    expect(folder.name).toMatch(/^2026-11-21T13-34-26\.123Z_[0-9a-f]{8}$/);
    expect(isRunId(folder.name)).toBe(true);
    expect(folder.dir).toBe(path.join(root, folder.name));
    for (const dir of [folder.dir, root, path.dirname(root), path.join(root, '.staging')]) expect(await mode(dir)).toBe(0o700);
  });

  it('writes files whole, 0600, and reads them back, bounded and never through a symbolic link', async () => {
    const folder = await new RunStore(await tempDir()).createRun();
    const file = await folder.write('final.md', 'the answer');
    expect(file).toBe(path.join(folder.dir, 'final.md'));
    expect(await mode(file)).toBe(0o600);
    expect(await folder.read('final.md', 100)).toBe('the answer');
    expect(await folder.read('absent.md', 100)).toBeUndefined();
    await expect(folder.read('final.md', 5)).rejects.toMatchObject({ code: 'ERR_STORE_TOO_LARGE' });

    const secret = path.join(await tempDir(), 'secret.txt');
    await writeFile(secret, 'not for the server');
    await symlink(secret, path.join(folder.dir, 'run.json'));
    expect(await folder.read('run.json', 100)).toBeUndefined();
    expect(await folder.list()).toEqual(['final.md']);
  });

  it('refuses file names that are not plain names, and writes nothing for them', async () => {
    const folder = await new RunStore(await tempDir()).createRun();
    for (const name of ['../escape.md', 'a/b.md', '.hidden', '..', '', 'x'.repeat(300)]) {
      await expect(folder.write(name, 'x')).rejects.toMatchObject({ code: 'ERR_STORE_BAD_NAME' });
    }
    expect(await readdir(folder.dir)).toEqual([]);
    expect(await readdir(path.dirname(folder.dir))).toEqual(['.staging', folder.name]);
  });

  it('replaces a file whole when it is written again; of writers of one file at once, one wins and none leaves a part', async () => {
    const folder = await new RunStore(await tempDir(), { durable: false }).createRun();
    for (const step of [1, 2, 3]) await folder.write('run.json', JSON.stringify({ step }));
    expect(JSON.parse((await folder.read('run.json', 1000))!)).toEqual({ step: 3 });
    const racing = Array.from({ length: 20 }, (_, i) => JSON.stringify({ racer: i, padding: 'x'.repeat(10_000) }));
    await Promise.all(racing.map((text) => folder.write('run.json', text)));
    expect(racing).toContain(await folder.read('run.json', 100_000));
    expect(await folder.list()).toEqual(['run.json']);
  });

  it('flushes a file written whole (final.md) to the disk, never an answer written piece by piece', async () => {
    const published = vi.spyOn(Disk.prototype, 'published');
    try {
      const folder = await new RunStore(await tempDir()).createRun();
      const answer = folder.writer('answer.md');
      answer.write('streamed');
      await answer.finish();
      const file = await folder.write('final.md', 'synthesized');
      // An answer of any length is not flushed.
      expect(published.mock.calls.map(([target]) => target)).toEqual([file]);
    } finally {
      published.mockRestore();
    }
  });

  it('writes a file piece by piece, visible only once whole; a discarded one leaves nothing', async () => {
    const store = new RunStore(await tempDir());
    const folder = await store.createRun();
    const writer = folder.writer('answer.md');
    for (const piece of ['one ', 'two ', 'three']) writer.write(piece);
    expect(await readdir(folder.dir)).toEqual([]);
    expect(await writer.finish()).toBe(path.join(folder.dir, 'answer.md'));
    expect(await readFile(path.join(folder.dir, 'answer.md'), 'utf8')).toBe('one two three');
    expect(await mode(path.join(folder.dir, 'answer.md'))).toBe(0o600);
    const dropped = folder.writer('dropped.md');
    dropped.write('half');
    await dropped.discard();
    expect(await readdir(folder.dir)).toEqual(['answer.md']);
    expect(await readdir(path.join(store.rootDir, '.staging'))).toEqual([]);
  });

  it('opens an existing run by id, and nothing else: no malformed id, no link, no file, no absent folder', async () => {
    const root = await tempDir();
    const store = new RunStore(root);
    // Letters in its random part, so that the id in capitals below is another id (a random one is all digits 2% of the time).
    const folder = await store.createRun('2026-01-02T03-04-05.678Z_0a1b2c3d');
    expect((await store.openRun(folder.name))?.dir).toBe(folder.dir);

    const elsewhere = await tempDir();
    await symlink(elsewhere, path.join(root, '2026-01-01T00-00-00.000Z_aaaaaaaa'));
    await writeFile(path.join(root, '2026-01-01T00-00-00.000Z_bbbbbbbb'), 'a file');
    const refused = ['2026-01-01T00-00-00.000Z_aaaaaaaa', '2026-01-01T00-00-00.000Z_bbbbbbbb', '2026-01-01T00-00-00.000Z_cccccccc'];
    for (const id of [...refused, '../x', `${folder.name}/..`, elsewhere, '.staging', '']) expect(await store.openRun(id)).toBeUndefined();
    expect(await store.openRun(folder.name.toUpperCase())).toBeUndefined();
  });

  it('lists run ids newest first, only real folders named as runs', async () => {
    const root = await tempDir();
    const store = new RunStore(root);
    const made: RunFolder[] = [];
    for (const day of ['01', '03', '02']) made.push(await store.createRun(newRunId(new Date(`2026-05-${day}T10:00:00.000Z`))));
    await mkdir(path.join(root, 'notes'));
    await symlink(made[0]!.dir, path.join(root, '2026-12-31T00-00-00.000Z_dddddddd'));
    expect(await store.listRuns(10)).toEqual([made[1]!.name, made[2]!.name, made[0]!.name]);
    expect(await store.listRuns(1)).toEqual([made[1]!.name]);
    expect(await new RunStore(path.join(root, 'absent')).listRuns(5)).toEqual([]);
  });
});

describe('RunStore: every file step has a time limit', () => {
  it.skipIf(!existsSync('/proc/self'))(
    'fails at once, with a reason, for an output folder under /proc (where Node 20’s recursive mkdir loops for ever)',
    async () => {
      const started = Date.now();
      await expect(new RunStore('/proc/parallel-llm-no-such/runs').createRun()).rejects.toMatchObject({ code: 'ENOENT' });
      expect(Date.now() - started).toBeLessThan(1000);
    },
  );

  it.skipIf(process.platform === 'win32')('rejects with ERR_STORE_TIMEOUT when the file system does not answer', async () => {
    const root = path.join(await tempDir(), 'runs');
    const release = await stallFileSystem(await tempDir());
    const started = Date.now();
    // Within a deadline of the test's own, so that the file system is let go even if createRun waits for ever.
    const outcome = await within(
      3000,
      new RunStore(root, { opTimeoutMs: 300 }).createRun().catch((error: unknown) => error),
    ).finally(release);
    expect(outcome).toMatchObject({ code: 'ERR_STORE_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('the server when the disk misbehaves', () => {
  let fake: FakeOpenRouter;
  beforeAll(async () => {
    fake = await startFakeOpenRouter();
  });
  afterAll(async () => {
    await fake.close();
  });

  it.skipIf(!existsSync('/proc/self'))('answers with a warning when the output folder is under /proc, instead of hanging', async () => {
    const harness = await startHarness(fake, { PARALLEL_LLM_OUTPUT_DIR: '/proc/parallel-llm-no-such/runs' });
    try {
      const result = (await harness.client.callTool({ name: 'process_prompt', arguments: { prompt: 'q' } })) as CallToolResult;
      const data = result.structuredContent as StructuredResult;
      expect(data.status).toBe('complete');
      expect(data.run_folder).toBeNull();
      expect(data.warnings.join('\n')).toContain('/proc/parallel-llm-no-such/runs');
    } finally {
      await harness.close();
    }
  });
});

/**
 * A file system that does not answer, for real: every thread of libuv's pool is made to
 * wait in open() on a FIFO that has no writer, so the next file operation waits in the
 * queue. The returned function opens each FIFO for writing, which lets them all go.
 */
async function stallFileSystem(dir: string): Promise<() => Promise<void>> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const fifos = Array.from({ length: threads }, (_, i) => path.join(dir, `fifo-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const readers = fifos.map((fifo) => open(fifo, 'r'));
  return async () => {
    for (const fifo of fifos) closeSync(openWriterWhenReaderWaits(fifo));
    for (const reader of readers) await (await reader).close();
  };
}

function openWriterWhenReaderWaits(fifo: string): number {
  for (let attempt = 0; ; attempt++) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      // ENXIO: the reader's open() has not reached the kernel yet.
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || attempt > 1000) throw error;
    }
  }
}
