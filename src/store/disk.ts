import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { flushFile, publish, publishIfAbsent, readOwnFile, textFill, withinFileSystem, writeTemporary } from './files.js';
import { remakeBelow } from './private-dir.js';

/** How long a flush waits after a file is published, to cover the versions that replace it meanwhile. */
export const FLUSH_DELAY_MS = 1000;

/** What a store and its run folders share: the output and staging folders, the time limit, durability. */
export class Disk {
  readonly stagingDir: string;
  /** Published files whose flush is to come. */
  private readonly flushDue = new Set<string>();

  constructor(
    readonly rootDir: string,
    private readonly opTimeoutMs: number,
    private readonly durable: boolean,
  ) {
    this.stagingDir = path.join(rootDir, '.staging');
  }

  /** Every file operation of the store has this time limit. */
  limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withinFileSystem(this.opTimeoutMs, what, work);
  }

  /** Runs a step that puts a file at `target`; when a folder on its way was removed mid-run (ENOENT), makes them again and retries once. */
  async inFolders<T>(target: string, signal: AbortSignal, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await this.remakeFolders(target, signal);
    return step();
  }

  async remakeFolders(target: string, signal: AbortSignal): Promise<void> {
    await remakeBelow(this.rootDir, [path.dirname(target), this.stagingDir], signal);
  }

  /** Writes `target` whole or not at all: a temporary file in the staging folder, renamed into place. */
  async writeFile(target: string, content: string): Promise<void> {
    await this.limit(`writing ${target}`, (signal) =>
      this.inFolders(target, signal, async () => publish(await this.temporary(target, content, signal), target, signal)),
    );
    this.published(target);
  }

  /** Like `writeFile`, only if no file has that name yet: true if this call made it. */
  async createFile(target: string, content: string): Promise<boolean> {
    const made = await this.limit(`creating ${target}`, (signal) =>
      this.inFolders(target, signal, async () => publishIfAbsent(await this.temporary(target, content, signal), target, signal)),
    );
    if (made) this.published(target);
    return made;
  }

  /** One that cannot be removed is left to the sweep. */
  removeTemporary(temporary: string): Promise<void> {
    return this.limit(`removing ${temporary}`, () => unlink(temporary)).catch(() => undefined);
  }

  /**
   * Flushes a published file to the disk (fsync) against power cuts; a kill -9 needs only the rename, so nobody
   * waits for it. The flush opens the file by name, so one covers every version published within FLUSH_DELAY_MS.
   */
  published(target: string): void {
    if (!this.durable || this.flushDue.has(target)) return;
    this.flushDue.add(target);
    setTimeout(() => {
      this.flushDue.delete(target);
      this.limit(`flushing ${target}`, (signal) => flushFile(target, signal)).catch(() => undefined);
    }, FLUSH_DELAY_MS).unref();
  }

  readFile(file: string, maxBytes: number, cut = false): Promise<string | undefined> {
    return this.limit(`reading ${file}`, (signal) => readOwnFile(file, maxBytes, signal, cut));
  }

  private temporary(target: string, content: string, signal: AbortSignal): Promise<string> {
    return writeTemporary(this.stagingDir, path.basename(target), textFill(content), signal);
  }
}
