import { constants } from 'node:fs';
import { rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Disk } from './disk.js';
import { copyFill, openNew, publish, temporaryName, writeTemporary } from './files.js';

/**
 * A file written piece by piece, as its text arrives, under a temporary name in the staging
 * folder; `finish` gives it its name whole, `discard` removes it. So a long answer never has to
 * be held whole in memory, and a file is still whole or absent, even after a kill -9.
 * The temporary file stays open until it has its name: if its folder is removed meanwhile, the
 * open file is the only copy left, and it is copied into the folders made again.
 */
export class FileWriter {
  private readonly temporary: string;
  private readonly handle: Promise<FileHandle>;
  private queue: Promise<unknown>;
  /** The first failure: every later step reports it, and `finish` rejects with it. */
  private failure: unknown;

  constructor(
    private readonly disk: Disk,
    private readonly target: string,
  ) {
    this.temporary = temporaryName(disk.stagingDir, path.basename(target));
    let opening: Promise<FileHandle> | undefined;
    this.handle = disk.limit(`creating ${this.temporary}`, (signal) => {
      // Read and write: the copy above reads it back.
      opening = disk.inFolders(this.temporary, signal, () => openNew(this.temporary, constants.O_RDWR));
      return opening;
    });
    this.queue = this.handle.catch((error: unknown) => (this.failure ??= error));
    // A file that opens after its time ran out is closed and removed at once: nobody will write it.
    void this.handle.catch(() => opening?.then((late) => late.close().then(() => unlink(this.temporary))).catch(() => undefined));
  }

  /** Appends `text`, in order; a failure is kept for `finish`. */
  write(text: string): void {
    this.queue = this.queue.then(async () => {
      if (this.failure) return;
      const handle = await this.handle;
      await this.disk.limit(`writing ${this.temporary}`, () => handle.write(text)).catch((error: unknown) => (this.failure ??= error));
    });
  }

  /** Once every piece is written: the file under its name, whole; on any failure, no temporary file is left. */
  async finish(): Promise<void> {
    await this.queue;
    const handle = await this.handle.catch(() => undefined);
    try {
      if (this.failure || !handle) throw this.failure;
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
    await this.queue;
    await this.close(await this.handle.catch(() => undefined)).catch(() => undefined);
    await this.remove();
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
