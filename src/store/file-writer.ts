import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { publish } from './files.js';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Runs a file step under the store's time limit. */
export type Limit = <T>(what: string, work: (signal: AbortSignal) => Promise<T>) => Promise<T>;

/**
 * A file written piece by piece, as its text arrives, under a temporary name in the staging
 * folder; `finish` gives it its name whole, `discard` removes it. So a long answer never has to
 * be held whole in memory, and a file is still whole or absent, even after a kill -9.
 */
export class FileWriter {
  private readonly temporary: string;
  private readonly handle: Promise<FileHandle>;
  private queue: Promise<unknown>;
  /** The first failure: every later step reports it, and `finish` rejects with it. */
  private failure: unknown;

  constructor(
    stagingDir: string,
    private readonly target: string,
    private readonly limit: Limit,
  ) {
    this.temporary = path.join(stagingDir, `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
    const opening = open(this.temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    this.handle = limit(`creating ${this.temporary}`, () => opening);
    this.queue = this.handle.catch((error: unknown) => (this.failure ??= error));
    // A file that opens after its time ran out is closed and removed at once: nobody will write it.
    void this.handle.catch(() => opening.then((late) => late.close().then(() => unlink(this.temporary))).catch(() => undefined));
  }

  /** Appends `text`, in order; a failure is kept for `finish`. */
  write(text: string): void {
    this.queue = this.queue.then(async () => {
      if (this.failure) return;
      const handle = await this.handle;
      await this.limit(`writing ${this.temporary}`, () => handle.write(text)).catch((error: unknown) => (this.failure ??= error));
    });
  }

  /** Once every piece is written: the file under its name, whole. */
  async finish(): Promise<void> {
    await this.settle();
    await this.limit(`writing ${this.target}`, (signal) => publish(this.temporary, this.target, signal));
  }

  /** The temporary file removed: the text was not the whole answer. */
  async discard(): Promise<void> {
    await this.settle().catch(() => undefined);
    await this.remove();
  }

  /** Every piece written and the file closed, each step within its limit; rejects with the first failure. */
  private async settle(): Promise<void> {
    await this.queue;
    const handle = await this.handle.catch(() => undefined);
    if (handle) await this.limit(`closing ${this.temporary}`, () => handle.close()).catch((error: unknown) => (this.failure ??= error));
    if (this.failure) {
      await this.remove();
      throw this.failure;
    }
  }

  private remove(): Promise<void> {
    return this.limit(`removing ${this.temporary}`, () => unlink(this.temporary)).catch(() => undefined);
  }
}
