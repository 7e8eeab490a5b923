import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Disk } from '../src/store/disk.js';
import { FileWriter } from '../src/store/file-writer.js';
import { tempDir } from './support/harness.js';
import { projectRoot } from './support/install.js';
import { waitFor } from './support/wait.js';

/** A batch of text written to the temporary file (not the rename that publishes it). */
const isBatch = (what: string) => what.startsWith('writing') && what.endsWith('.tmp');

/** A real disk (5 s limit) that counts the batch writes, and can hold them until `release`. */
class WatchedDisk extends Disk {
  writes = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  hold(): void {
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  override limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return super.limit(what, async (signal) => {
      if (isBatch(what)) {
        this.writes++;
        await this.gate;
      }
      return work(signal);
    });
  }
}

/** A disk whose batch writes never end: each runs out of its (50 ms) time. */
class StalledDisk extends Disk {
  private timedOut!: () => void;
  /** Settles once a batch write has run out of its time. */
  readonly batchTimedOut = new Promise<void>((resolve) => {
    this.timedOut = resolve;
  });

  override limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const limited = super.limit(what, (signal) => (isBatch(what) ? new Promise<never>(() => undefined) : work(signal)));
    if (isBatch(what)) limited.catch(() => this.timedOut());
    return limited;
  }
}

/** An output folder with its staging folder, and a writer of `answer.md` in it. */
async function writerIn(
  batching: { batchChars: number; batchMs: number },
  disk: (root: string) => Disk = (root) => new WatchedDisk(root, 5000, false),
) {
  const root = await tempDir();
  const staging = path.join(root, '.staging');
  await mkdir(staging, { mode: 0o700 });
  const target = path.join(root, 'answer.md');
  const used = disk(root);
  return { root, staging, target, disk: used as WatchedDisk, writer: new FileWriter(used, target, batching) };
}

/** The one temporary file in `staging`, read; undefined until the writer has made it. */
async function temporaryText(staging: string): Promise<string | undefined> {
  const [name] = (await readdir(staging)).filter((entry) => entry.endsWith('.tmp'));
  return name === undefined ? undefined : readFile(path.join(staging, name), 'utf8');
}

const settle = () => sleep(50);

describe('FileWriter', () => {
  it('writes pieces in batches, not one write per piece, and the file appears whole, 0600, in order', async () => {
    const { root, staging, target, disk, writer } = await writerIn({ batchChars: 1000, batchMs: 60_000 });
    const pieces = Array.from({ length: 2000 }, (_, i) => `${i} `);
    // As a stream comes: a network read's worth of pieces, then a moment.
    for (let i = 0; i < pieces.length; i++) {
      writer.write(pieces[i]!);
      if (i % 200 === 0) await settle();
    }
    await writer.finish();
    expect(await readFile(target, 'utf8')).toBe(pieces.join(''));
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(disk.writes).toBeGreaterThan(1);
    expect(disk.writes).toBeLessThanOrEqual(Math.ceil(pieces.join('').length / 1000) + 1);
    expect(await readdir(root)).toEqual(['.staging', 'answer.md']);
    expect(await readdir(staging)).toEqual([]);
  });

  it('writes nothing until a batch is full, then the whole batch', async () => {
    const { staging, disk, writer } = await writerIn({ batchChars: 100, batchMs: 60_000 });
    for (let i = 0; i < 33; i++) writer.write('abc');
    await settle();
    expect(await temporaryText(staging)).toBe('');
    writer.write('d');
    await settle();
    expect(await temporaryText(staging)).toBe(`${'abc'.repeat(33)}d`);
    expect(disk.writes).toBe(1);
    await writer.discard();
  });

  it('never parts a surrogate pair split between two pieces, wherever a batch ends', async () => {
    const text = 'a😀b€😀😀c';
    for (let split = 1; split < text.length; split++) {
      const { target, writer } = await writerIn({ batchChars: split, batchMs: 60_000 });
      for (let at = 0; at < text.length; at += split) writer.write(text.slice(at, at + split));
      await writer.finish();
      expect(await readFile(target, 'utf8')).toBe(text);
    }
    const { target, writer } = await writerIn({ batchChars: 1, batchMs: 60_000 });
    writer.write('end\ud83d');
    await writer.finish();
    expect(await readFile(target, 'utf8')).toBe('end\ufffd');
  });

  it('writes what it has once the batch’s time is up, though no more text comes', async () => {
    const { staging, writer } = await writerIn({ batchChars: 1000, batchMs: 20 });
    writer.write('a slow model');
    await waitFor(async () => (await temporaryText(staging)) === 'a slow model');
    writer.write(', later');
    await waitFor(async () => (await temporaryText(staging)) === 'a slow model, later');
    await writer.discard();
  });

  it('asks the writer to wait while the disk is behind by four batches, and lets it go on once they are written', async () => {
    const { target, disk, writer } = await writerIn({ batchChars: 10, batchMs: 60_000 });
    disk.hold();
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
    disk.release();
    await wait;
    expect(waited).toBe(true);
    await writer.finish();
    expect(await readFile(target, 'utf8')).toBe(['0', '1', '2', '3', '4', '5'].map((digit) => digit.repeat(10)).join(''));
  });

  it('fails the file, and finish rejects, when a batch write outlasts its time limit; later text is not kept', async () => {
    let disk!: StalledDisk;
    const { root, staging, writer } = await writerIn({ batchChars: 5, batchMs: 60_000 }, (dir) => {
      disk = new StalledDisk(dir, 50, false);
      return disk;
    });
    writer.write('12345');
    await disk.batchTimedOut;
    expect(writer.write('more text')).toBeUndefined();
    await expect(writer.finish()).rejects.toMatchObject({ code: 'ERR_STORE_TIMEOUT' });
    expect(await readdir(root)).toEqual(['.staging']);
    expect(await readdir(staging)).toEqual([]);
  });

  it('discards what was not yet written without writing it, and leaves nothing behind', async () => {
    const { staging, disk, writer } = await writerIn({ batchChars: 1000, batchMs: 60_000 });
    writer.write('half an answer');
    await writer.discard();
    expect(disk.writes).toBe(0);
    expect(await readdir(staging)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')(
    'fails the file, leaving nothing, when the disk takes only part of a write (it filled up midway)',
    async () => {
      const root = await tempDir();
      const module = (file: string) => JSON.stringify(path.join(projectRoot, 'src', 'store', file));
      const script = [
        `import { Disk } from ${module('disk.ts')};`,
        `import { FileWriter } from ${module('file-writer.ts')};`,
        `const writer = new FileWriter(new Disk(${JSON.stringify(root)}, 5000, false), ${JSON.stringify(path.join(root, 'answer.md'))});`,
        `writer.write('x'.repeat(1600));`,
        `await writer.finish().then(() => console.log('finished'), (error) => console.log(error.code));`,
      ].join('\n');
      // A file size limit of 1 KiB: the kernel takes the first 1024 bytes of the write and returns, with no error.
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', 'ulimit -f 1 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
        { cwd: projectRoot },
      );
      expect(stdout.trim()).toBe('ERR_STORE_SHORT_WRITE');
      expect(await readdir(path.join(root, '.staging'))).toEqual([]);
      expect(await readdir(root)).toEqual(['.staging']);
    },
  );
});
