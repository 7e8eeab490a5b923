import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, readFile, readdir, rm, stat, symlink, unlink, watch, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../src/store/run-store.js';
import { tempDir } from './support/harness.js';
import { journalOn } from './support/journal.js';
import { mountTmpfs, type Tmpfs } from './support/tmpfs.js';
import { waitFor, within } from './support/wait.js';

const run = promisify(execFile);
const projectRoot = path.resolve(import.meta.dirname, '..');
const mode = async (file: string) => (await stat(file)).mode & 0o777;
const staged = (root: string) => readdir(path.join(root, '.staging'));

describe('a folder removed mid-run is made again, and the write lands', () => {
  it('re-makes a removed run folder (0700) for a whole write, a journal and a streamed answer', async () => {
    const root = await tempDir();
    const folder = await new RunStore(root).createRun();
    const streamed = folder.writer('candidate-1_a.md');
    streamed.write('streamed ');
    await rm(folder.dir, { recursive: true });

    await folder.write('final.md', 'the answer');
    await folder.write('run.json', '{"step":2}');
    streamed.write('answer');
    await streamed.finish();

    expect(await mode(folder.dir)).toBe(0o700);
    expect(await readFile(path.join(folder.dir, 'candidate-1_a.md'), 'utf8')).toBe('streamed answer');
    expect((await readdir(folder.dir)).sort()).toEqual(['candidate-1_a.md', 'final.md', 'run.json']);
    expect(await staged(root)).toEqual([]);
  });

  it('lands a streamed answer whole when the staging folder, its temporary file in it, was removed mid-stream', async () => {
    const root = await tempDir();
    const folder = await new RunStore(root).createRun();
    const streamed = folder.writer('candidate-1_a.md');
    const pieces = Array.from({ length: 300 }, (_, i) => `piece ${i} `.padEnd(10_000, '.'));
    for (const piece of pieces.slice(0, 150)) streamed.write(piece);
    await waitFor(async () => (await staged(root)).length === 1);
    await rm(path.join(root, '.staging'), { recursive: true });
    for (const piece of pieces.slice(150)) streamed.write(piece);
    await streamed.finish();

    expect(await readFile(path.join(folder.dir, 'candidate-1_a.md'), 'utf8')).toBe(pieces.join(''));
    expect(await mode(path.join(root, '.staging'))).toBe(0o700);
    expect(await staged(root)).toEqual([]);
  });

  it('re-makes the whole output folder, removed with everything in it, and checks it again, for a write and for a new run', async () => {
    const root = path.join(await tempDir(), 'runs');
    const store = new RunStore(root);
    const folder = await store.createRun();
    await rm(root, { recursive: true });
    await folder.write('run.json', '{"step":2}');
    expect(await readFile(path.join(folder.dir, 'run.json'), 'utf8')).toBe('{"step":2}');
    for (const dir of [root, folder.dir, path.join(root, '.staging')]) expect(await mode(dir)).toBe(0o700);
    await rm(root, { recursive: true });
    const next = await store.createRun();
    await next.write('run.json', '{"step":1}');
    expect(await readdir(root)).toEqual(expect.arrayContaining(['.staging', next.name]));
  });

  it('never makes a folder through a symbolic link left where the removed run folder was', async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    const folder = await new RunStore(root).createRun();
    await rm(folder.dir, { recursive: true });
    // A link to a folder that does not exist: the write finds no folder, and must not make one where the link leads.
    await symlink(path.join(elsewhere, 'missing'), folder.dir);
    await expect(folder.write('final.md', 'the answer')).rejects.toMatchObject({ code: 'ERR_STORE_UNSAFE' });
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await staged(root)).toEqual([]);
  });
});

describe('EACCES leaves no temporary file behind', () => {
  const title = 'for a whole write, a journal and a streamed answer, into a run folder made read-only mid-run';
  it.skipIf(process.platform === 'win32')(title, async (context) => {
    const root = await tempDir();
    const writer = path.join(projectRoot, 'test', 'support', 'eacces-writer.ts');
    const node = [process.execPath, '--import', 'tsx', writer, root];
    // Root may write in a read-only folder: the writer runs without that right.
    const command = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', ...node] : node;
    const outcome = await run(command[0]!, command.slice(1), { cwd: projectRoot }).catch(
      (error: NodeJS.ErrnoException & { stderr?: string }) => error,
    );
    if (outcome instanceof Error) {
      if (outcome.code === 'ENOENT') context.skip(`cannot drop the right to override permissions: ${outcome.message}`);
      throw outcome;
    }
    const report = JSON.parse(outcome.stdout);
    for (const name of ['whole', 'journal', 'streamed']) expect(report[name], name).toEqual({ outcome: 'EACCES', staging: [] });
  });
});

describe('the journal catches up once the disk takes writes again', () => {
  let tmpfs: Tmpfs | string | undefined;
  afterAll(async () => {
    if (typeof tmpfs === 'object') await tmpfs.unmount();
  });

  it('rewrites the latest run.json after ENOSPC clears, with no new step, and is not flushed until then', async (context) => {
    tmpfs = await mountTmpfs(512);
    if (typeof tmpfs === 'string') {
      console.warn(`skipped: ${tmpfs}`);
      return context.skip(tmpfs);
    }
    const root = path.join(tmpfs.dir, 'runs');
    const folder = await new RunStore(root, { durable: false }).createRun();
    const onDisk = async () => JSON.parse(await readFile(path.join(folder.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    const { journal, record, warnings } = journalOn(folder, { firstMs: 20, maxMs: 100 });
    expect(await journal.saveRecord()).toBe(true);
    const filler = path.join(tmpfs.dir, 'filler');
    await fill(filler);

    Object.assign(record, { status: 'complete', padding: 'x'.repeat(20_000) });
    // Each try makes its temporary file in the staging folder and removes it: two changes a try.
    const threeTries = changesIn(path.join(root, '.staging'), 6);
    expect(await journal.saveRecord()).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/could not save run\.json: .*ENOSPC/)]);
    let flushed = false;
    void journal.flushed().then(() => (flushed = true));
    // Tried again and again meanwhile, and still refused.
    await threeTries;
    expect(flushed).toBe(false);
    expect((await onDisk()).status).toBe('running');

    await unlink(filler);
    await within(5000, journal.flushed());
    expect(await onDisk()).toMatchObject({ status: 'complete', padding: 'x'.repeat(20_000) });
    expect(await staged(root)).toEqual([]);
  });
});

/** Settles once `count` files have been made or removed in `dir`; fails after 5 s. */
async function changesIn(dir: string, count: number): Promise<void> {
  let seen = 0;
  for await (const { eventType } of watch(dir, { signal: AbortSignal.timeout(5000) }))
    if (eventType === 'rename' && ++seen === count) return;
}

/** Fills the file system of `file` to the last byte. */
async function fill(file: string): Promise<void> {
  for (const chunk of [Buffer.alloc(64 * 1024), Buffer.alloc(1)]) {
    for (;;) {
      const full = await appendFile(file, chunk).then(
        () => false,
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOSPC') throw error;
          return true;
        },
      );
      if (full) break;
    }
  }
  expect(existsSync(file)).toBe(true);
  await expect(writeFile(`${file}-probe`, 'x')).rejects.toMatchObject({ code: 'ENOSPC' });
  await unlink(`${file}-probe`);
}
