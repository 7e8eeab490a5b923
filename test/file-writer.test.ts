import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FileWriter, type Limit } from '../src/store/file-writer.js';
import { withTimeLimit } from '../src/store/time-limit.js';
import { tempDir } from './support/harness.js';
import { projectRoot } from './support/install.js';

/** A batch of text written to the temporary file (not the rename that publishes it). */
const isBatch = (what: string) => what.startsWith('writing') && what.endsWith('.tmp');

/** A limit like the store's (5 s) that counts the batch writes, and can hold them until `release`. */
function watchedLimit() {
  let gate: Promise<void> = Promise.resolve();
  let open = () => undefined as void;
  const watched = {
    writes: 0,
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release: () => open(),
    limit: (<T>(what: string, work: (signal: AbortSignal) => Promise<T>) =>
      withTimeLimit(5000, what, async (signal) => {
        if (isBatch(what)) {
          watched.writes++;
          await gate;
        }
        return work(signal);
      })) as Limit,
  };
  return watched;
}

async function writerIn(batching: { batchChars: number; batchMs: number }, limit: Limit) {
  const dir = await tempDir();
  const target = path.join(dir, 'answer.md');
  return { dir, target, writer: new FileWriter(dir, target, limit, batching) };
}

/** The one temporary file in `dir`, read. */
async function temporaryText(dir: string): Promise<string> {
  const [name] = (await readdir(dir)).filter((entry) => entry.endsWith('.tmp'));
  return readFile(path.join(dir, name!), 'utf8');
}

const settle = () => sleep(50);

describe('FileWriter', () => {
  it('writes pieces in batches, not one write per piece, and the file appears whole, 0600, in order', async () => {
    const watched = watchedLimit();
    const { dir, target, writer } = await writerIn({ batchChars: 1000, batchMs: 60_000 }, watched.limit);
    const pieces = Array.from({ length: 2000 }, (_, i) => `${i} `);
    // As a stream comes: a network read's worth of pieces, then a moment.
    for (let i = 0; i < pieces.length; i++) {
      writer.write(pieces[i]!);
      if (i % 200 === 0) await settle();
    }
    await writer.finish();
    expect(await readFile(target, 'utf8')).toBe(pieces.join(''));
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(watched.writes).toBeGreaterThan(1);
    expect(watched.writes).toBeLessThanOrEqual(Math.ceil(pieces.join('').length / 1000) + 1);
    expect(await readdir(dir)).toEqual(['answer.md']);
  });

  it('writes nothing until a batch is full, then the whole batch', async () => {
    const watched = watchedLimit();
    const { dir, writer } = await writerIn({ batchChars: 100, batchMs: 60_000 }, watched.limit);
    for (let i = 0; i < 33; i++) writer.write('abc');
    await settle();
    expect(await temporaryText(dir)).toBe('');
    writer.write('d');
    await settle();
    expect(await temporaryText(dir)).toBe(`${'abc'.repeat(33)}d`);
    expect(watched.writes).toBe(1);
    await writer.discard();
  });

  it('writes what it has once the batch’s time is up, though no more text comes', async () => {
    const watched = watchedLimit();
    const { dir, writer } = await writerIn({ batchChars: 1000, batchMs: 20 }, watched.limit);
    writer.write('a slow model');
    await sleep(200);
    expect(await temporaryText(dir)).toBe('a slow model');
    writer.write(', later');
    await sleep(200);
    expect(await temporaryText(dir)).toBe('a slow model, later');
    await writer.discard();
  });

  it('asks the writer to wait while the disk is behind by four batches, and lets it go on once they are written', async () => {
    const watched = watchedLimit();
    const { target, writer } = await writerIn({ batchChars: 10, batchMs: 60_000 }, watched.limit);
    watched.hold();
    const waits: Array<Promise<void> | undefined> = [writer.write('0'.repeat(10))];
    await settle();
    for (let i = 1; i < 6; i++) waits.push(writer.write(`${i}`.repeat(10)));
    // The first batch is on its way to the disk (held); the next four are in memory, and from there on the writer must wait.
    expect(waits.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    const wait = waits[4]!;
    expect(wait).toBeInstanceOf(Promise);
    let waited = false;
    void wait.then(() => (waited = true));
    await settle();
    expect(waited).toBe(false);
    watched.release();
    await wait;
    expect(waited).toBe(true);
    await writer.finish();
    expect(await readFile(target, 'utf8')).toBe(['0', '1', '2', '3', '4', '5'].map((digit) => digit.repeat(10)).join(''));
  });

  it('fails the file, and finish rejects, when a batch write outlasts its time limit; later text is not kept', async () => {
    const stalled: Limit = (what, work) => withTimeLimit(50, what, (signal) => (isBatch(what) ? new Promise<never>(() => undefined) : work(signal)));
    const { dir, writer } = await writerIn({ batchChars: 5, batchMs: 60_000 }, stalled);
    writer.write('12345');
    await sleep(150);
    expect(writer.write('more text')).toBeUndefined();
    await expect(writer.finish()).rejects.toMatchObject({ code: 'ERR_STORE_TIMEOUT' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('discards what was not yet written without writing it, and leaves nothing behind', async () => {
    const watched = watchedLimit();
    const { dir, writer } = await writerIn({ batchChars: 1000, batchMs: 60_000 }, watched.limit);
    writer.write('half an answer');
    await writer.discard();
    expect(watched.writes).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')('fails the file, leaving nothing, when the disk takes only part of a write (it filled up midway)', async () => {
    const dir = await tempDir();
    const module = (file: string) => JSON.stringify(path.join(projectRoot, 'src', 'store', file));
    const script = [
      `import { FileWriter } from ${module('file-writer.ts')};`,
      `import { withTimeLimit } from ${module('time-limit.ts')};`,
      `const writer = new FileWriter(${JSON.stringify(dir)}, ${JSON.stringify(path.join(dir, 'answer.md'))}, (what, work) => withTimeLimit(5000, what, work));`,
      `writer.write('x'.repeat(1600));`,
      `await writer.finish().then(() => console.log('finished'), (error) => console.log(error.code));`,
    ].join('\n');
    // A file size limit of 1 KiB: the kernel takes the first 1024 bytes of the write and returns, with no error.
    const { stdout } = await promisify(execFile)('bash', ['-c', 'ulimit -f 1 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script], { cwd: projectRoot });
    expect(stdout.trim()).toBe('ERR_STORE_SHORT_WRITE');
    expect(await readdir(dir)).toEqual([]);
  });
});
