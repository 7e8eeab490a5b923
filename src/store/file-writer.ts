import { constants } from 'node:fs';
import { rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Disk } from './disk.js';
import { copyFill, openNew, publish, temporaryName, writeTemporary } from './files.js';
import { StoreError } from './store-error.js';
import { freeBytes } from '../free-bytes.js';
import { SplitPairs } from '../surrogate-pairs.js';

/** When the text goes to the disk: in batches of `batchChars`, or `batchMs` after a batch's first piece, whichever comes first. */
export interface Batching {
  batchChars: number;
  batchMs: number;
}

/**
 * Batches of 32 Ki characters (32-96 KiB on disk) instead of one write per streamed piece: as a
 * string, a batch stays under V8's large-object size (128 KiB, which only a full collection
 * frees), so it dies young. 200 ms keeps a slow model's file close behind it. Past four batches
 * not yet written, the writer asks to be waited for.
 */
const DEFAULT_BATCHING: Batching = { batchChars: 32 * 1024, batchMs: 200 };
const HIGH_WATER_BATCHES = 4;

/**
 * A file written piece by piece, as its text arrives, under a temporary name in the staging
 * folder; `finish` gives it its name whole, `discard` removes it. So a long answer never has to
 * be held whole in memory, and a file is still whole or absent, even after a kill -9. Pieces
 * are gathered into batches, written through one handle, one write at a time, each within the limit.
 * The temporary file stays open until it has its name: if its folder is removed meanwhile, the
 * open file is the only copy left, and it is copied into the folders made again.
 */
export class FileWriter {
  private readonly temporary: string;
  private readonly handle: Promise<FileHandle>;
  private pending: string[] = [];
  private pendingChars = 0;
  /** A pair a stream split between two pieces is joined before either goes into a batch: no batch parts it. */
  private readonly pairs = new SplitPairs();
  /** The batches being written, if any: one run of writes at a time keeps the text in order. */
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The batch's time is up (or the file is closing): write what there is, however little. */
  private due = false;
  /** `discard` was called: nothing more is written. */
  private dropped = false;
  /** The first failure: every later step reports it, and `finish` rejects with it. */
  private failure: unknown;

  constructor(
    private readonly disk: Disk,
    private readonly target: string,
    private readonly batching: Batching = DEFAULT_BATCHING,
  ) {
    this.temporary = temporaryName(disk.stagingDir, path.basename(target));
    let opening: Promise<FileHandle> | undefined;
    this.handle = disk.limit(`creating ${this.temporary}`, (signal) => {
      // Read and write: the copy above reads it back.
      opening = disk.inFolders(this.temporary, signal, () => openNew(this.temporary, constants.O_RDWR));
      return opening;
    });
    this.handle.catch((error: unknown) => this.fail(error));
    // A file that opens after its time ran out is closed and removed at once: nobody will write it.
    void this.handle.catch(() => opening?.then((late) => late.close().then(() => unlink(this.temporary))).catch(() => undefined));
  }

  /**
   * Appends `text`, in order; a failure is kept for `finish`. Returns a promise when more than
   * a few batches wait for the disk: the caller should not produce more text until it settles
   * (it never rejects).
   */
  write(text: string): Promise<void> | undefined {
    if (this.failure !== undefined || this.dropped || text === '') return undefined;
    const piece = this.pairs.join(text);
    if (piece === '') return undefined;
    this.pending.push(piece);
    this.pendingChars += piece.length;
    if (this.pendingChars >= this.batching.batchChars) this.flush();
    else this.timer ??= setTimeout(() => this.timeUp(), this.batching.batchMs).unref();
    return this.pendingChars >= HIGH_WATER_BATCHES * this.batching.batchChars ? this.writing : undefined;
  }

  /** Once every piece is written: the file under its name, whole; on any failure, no temporary file is left. */
  async finish(): Promise<void> {
    // A half with no other half is written as it stands (UTF-8 makes it U+FFFD).
    if (this.pairs.held !== '' && this.failure === undefined && !this.dropped) this.pending.push(this.pairs.held);
    await this.drain();
    const handle = await this.handle.catch(() => undefined);
    try {
      if (this.failure !== undefined || !handle) throw this.failure;
      await this.disk.limit(`writing ${this.target}`, (signal) => this.publishFrom(handle, signal));
    } catch (error) {
      await this.close(handle).catch(() => undefined);
      await this.remove();
      throw error;
    }
    await this.close(handle).catch(async (error: unknown) => {
      // The file system reported a lost write at close: the file under its name is not whole.
      await this.disk.limit(`removing ${this.target}`, () => unlink(this.target)).catch(() => undefined);
      throw error;
    });
  }

  /** The temporary file removed: the text was not the whole answer. */
  async discard(): Promise<void> {
    this.dropped = true;
    this.pending = [];
    this.pendingChars = 0;
    await this.drain();
    await this.close(await this.handle.catch(() => undefined)).catch(() => undefined);
    await this.remove();
  }

  private timeUp(): void {
    this.timer = undefined;
    this.due = true;
    this.flush();
  }

  /** Starts writing batches, unless a run of writes is going on (it takes what is pending when it gets to it). */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing ??= this.writeBatches().finally(() => (this.writing = undefined));
  }

  /** Writes what is pending once it makes a batch (or its time is up), one write at a time, each within the limit. */
  private async writeBatches(): Promise<void> {
    const handle = await this.handle.catch(() => undefined);
    while (handle && this.failure === undefined && this.pending.length > 0 && (this.due || this.pendingChars >= this.batching.batchChars)) {
      const batches = this.takeBatches();
      await this.disk.limit(`writing ${this.temporary}`, () => appendAll(handle, batches)).catch((error: unknown) => this.fail(error));
    }
    if (this.pending.length > 0 && this.failure === undefined)
      this.timer ??= setTimeout(() => this.timeUp(), this.batching.batchMs).unref();
  }

  /**
   * Everything pending, encoded in batches of about `batchChars`: a writer that fell behind (a
   * reader need not wait for it) catches up in one write, and no string is joined past V8's
   * large-object size.
   */
  private takeBatches(): Buffer[] {
    const batches: Buffer[] = [];
    for (let start = 0, end = 0; start < this.pending.length; start = end) {
      for (let chars = 0; end < this.pending.length && chars < this.batching.batchChars; end++) chars += this.pending[end]!.length;
      batches.push(Buffer.from(end - start === 1 ? this.pending[start]! : this.pending.slice(start, end).join('')));
    }
    this.pending = [];
    this.pendingChars = 0;
    this.due = false;
    return batches;
  }

  /** Every piece written (or given up after a failure), each write within its limit. */
  private async drain(): Promise<void> {
    while (this.writing || (this.pending.length > 0 && this.failure === undefined)) {
      this.due = true;
      this.flush();
      await this.writing;
    }
    clearTimeout(this.timer);
  }

  /** Keeps the first failure, and lets go of the text that will never be written. */
  private fail(error: unknown): void {
    this.failure ??= error;
    this.pending = [];
    this.pendingChars = 0;
  }

  /** Renames the temporary file into place; after a folder was removed, copies the open file into the folders made again. */
  private async publishFrom(handle: FileHandle, signal: AbortSignal): Promise<void> {
    try {
      signal.throwIfAborted();
      return await rename(this.temporary, this.target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await this.disk.remakeFolders(this.target, signal);
    const copy = await writeTemporary(this.disk.stagingDir, path.basename(this.target), copyFill(handle), false, signal);
    await unlink(this.temporary).catch(() => undefined);
    await publish(copy, this.target, signal);
  }

  private async close(handle: FileHandle | undefined): Promise<void> {
    if (handle) await this.disk.limit(`closing ${this.temporary}`, () => handle.close());
  }

  private remove(): Promise<void> {
    return this.disk.limit(`removing ${this.temporary}`, () => unlink(this.temporary)).catch(() => undefined);
  }
}

/**
 * Writes the batches where the last write ended, in one writev (libuv goes on while the disk
 * takes them in parts), and frees them once it is done. A disk that takes less than all of them
 * without an error filled up midway.
 */
async function appendAll(handle: FileHandle, batches: Buffer[]): Promise<void> {
  const size = batches.reduce((sum, batch) => sum + batch.length, 0);
  const { bytesWritten } = await handle.writev(batches).finally(() => batches.forEach(freeBytes));
  if (bytesWritten < size) throw new StoreError('ERR_STORE_SHORT_WRITE', `the disk took ${bytesWritten} of ${size} bytes`);
}
