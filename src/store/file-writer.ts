import { constants } from 'node:fs';
import { rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Disk } from './disk.js';
import { copyFill, openNew, publish, temporaryName, writeTemporary } from './files.js';
import { StoreError } from './store-error.js';
import type { TextWriter } from './store.js';
import { freeBytes } from '../text/free-bytes.js';
import { Utf8Bytes } from '../text/utf8-bytes.js';

/** A batch goes to the disk at `batchChars`, or `batchMs` after its first piece, whichever comes first. */
interface Batching {
  batchChars: number;
  batchMs: number;
}

/** 200 ms keeps a slow model's file close behind it; past four batches not yet written, the writer asks to be waited for. */
const DEFAULT_BATCHING: Batching = { batchChars: 32 * 1024, batchMs: 200 };
const HIGH_WATER_BATCHES = 4;

/**
 * A file written in batches as its text arrives, under a temporary name, so a long answer is never held
 * whole in memory and the file is still whole or absent after a kill -9. The temporary file stays open
 * until it has its name: if its folder is removed meanwhile, the open file is the only copy left.
 */
export class FileWriter implements TextWriter {
  private readonly temporary: string;
  private readonly handle: Promise<FileHandle>;
  /** Encoded as it comes, so its strings die young. */
  private readonly pending = new Utf8Bytes();
  private pendingChars = 0;
  /** One run of writes at a time keeps the text in order. */
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Write what there is, however little. */
  private due = false;
  private dropped = false;
  /** The first failure, which `finish` rejects with. */
  private failure: unknown;

  constructor(
    private readonly disk: Disk,
    private readonly target: string,
    private readonly batching: Batching = DEFAULT_BATCHING,
  ) {
    this.temporary = temporaryName(disk.stagingDir, path.basename(target));
    let opening: Promise<FileHandle> | undefined;
    this.handle = disk.limit(`creating ${this.temporary}`, (signal) => {
      // Read and write: `publishFrom` may copy it back out.
      opening = disk.inFolders(this.temporary, signal, () => openNew(this.temporary, constants.O_RDWR));
      return opening;
    });
    this.handle.catch((error: unknown) => this.fail(error));
    // A file that opens after its time ran out is closed and removed at once: nobody will write it.
    void this.handle.catch(() => opening?.then((late) => late.close().then(() => unlink(this.temporary))).catch(() => undefined));
  }

  /** A failure is kept for `finish`; returns a promise (that never rejects) when the disk is behind. */
  write(text: string): Promise<void> | undefined {
    if (this.failure !== undefined || this.dropped || text === '') return undefined;
    const chars = this.pending.append(text);
    if (chars === 0) return undefined;
    this.pendingChars += chars;
    if (this.pendingChars >= this.batching.batchChars) this.flush();
    else this.timer ??= setTimeout(() => this.flush(true), this.batching.batchMs).unref();
    return this.pendingChars >= HIGH_WATER_BATCHES * this.batching.batchChars ? this.writing : undefined;
  }

  /** Resolves with the file's path; on any failure, no temporary file is left. */
  async finish(): Promise<string> {
    if (this.failure === undefined && !this.dropped) this.pending.end();
    await this.drain();
    const handle = await this.handle.catch(() => undefined);
    try {
      if (this.failure !== undefined || !handle) throw this.failure;
      await this.disk.limit(`writing ${this.target}`, (signal) => this.publishFrom(handle, signal));
    } catch (error) {
      await this.close(handle).catch(() => undefined);
      await this.disk.removeTemporary(this.temporary);
      throw error;
    }
    await this.close(handle).catch(async (error: unknown) => {
      // The file system reported a lost write at close: the file under its name is not whole.
      await this.disk.limit(`removing ${this.target}`, () => unlink(this.target)).catch(() => undefined);
      throw error;
    });
    return this.target;
  }

  async discard(): Promise<void> {
    this.dropped = true;
    this.forgetPending();
    await this.drain();
    await this.close(await this.handle.catch(() => undefined)).catch(() => undefined);
    await this.disk.removeTemporary(this.temporary);
  }

  /** A run of writes going on takes what is pending when it gets to it; `due`: however little there is. */
  private flush(due = false): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due ||= due;
    this.writing ??= this.writeBatches().finally(() => (this.writing = undefined));
  }

  private async writeBatches(): Promise<void> {
    const handle = await this.handle.catch(() => undefined);
    while (handle && this.failure === undefined && this.pending.size > 0 && (this.due || this.pendingChars >= this.batching.batchChars)) {
      // Everything pending, so a writer that fell behind catches up in one write.
      this.pendingChars = 0;
      this.due = false;
      const batch = this.pending.take();
      await this.disk.limit(`writing ${this.temporary}`, () => append(handle, batch)).catch((error: unknown) => this.fail(error));
    }
    if (this.pending.size > 0 && this.failure === undefined)
      this.timer ??= setTimeout(() => this.flush(true), this.batching.batchMs).unref();
  }

  private async drain(): Promise<void> {
    while (this.writing || (this.pending.size > 0 && this.failure === undefined)) {
      this.flush(true);
      await this.writing;
    }
    clearTimeout(this.timer);
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.forgetPending();
  }

  private forgetPending(): void {
    this.pending.free();
    this.pendingChars = 0;
  }

  /** After a folder was removed, copies the open file into the folders made again. */
  private async publishFrom(handle: FileHandle, signal: AbortSignal): Promise<void> {
    try {
      signal.throwIfAborted();
      return await rename(this.temporary, this.target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await this.disk.remakeFolders(this.target, signal);
    const copy = await writeTemporary(this.disk.stagingDir, path.basename(this.target), copyFill(handle), signal);
    await unlink(this.temporary).catch(() => undefined);
    await publish(copy, this.target, signal);
  }

  private async close(handle: FileHandle | undefined): Promise<void> {
    if (handle) await this.disk.limit(`closing ${this.temporary}`, () => handle.close());
  }
}

/** Frees the batch once written; a disk that takes less than all of it without an error filled up midway. */
async function append(handle: FileHandle, batch: Buffer): Promise<void> {
  const size = batch.length;
  const { bytesWritten } = await handle.write(batch, 0, size).finally(() => freeBytes(batch));
  if (bytesWritten < size) throw new StoreError('ERR_STORE_SHORT_WRITE', `the disk took ${bytesWritten} of ${size} bytes`);
}
