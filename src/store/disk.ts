import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { Flusher } from './flusher.js';
import { flushFile, publish, publishIfAbsent, readOwnFile, textFill, writeTemporary } from './files.js';
import { remakeBelow } from './private-dir.js';
import { withTimeLimit } from './time-limit.js';

/**
 * What a store and its run folders share: the output folder and its staging folder for
 * temporary files, the time limit, durability.
 */
export class Disk {
  readonly stagingDir: string;
  /** Undefined when files are not flushed to the disk. */
  private readonly flusher: Flusher | undefined;

  constructor(
    readonly rootDir: string,
    private readonly opTimeoutMs: number,
    durable: boolean,
  ) {
    this.stagingDir = path.join(rootDir, '.staging');
    this.flusher = durable ? new Flusher((file) => this.limit(`flushing ${file}`, (signal) => flushFile(file, signal))) : undefined;
  }

  limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withTimeLimit(this.opTimeoutMs, what, work);
  }

  /**
   * Runs a write step that puts a file at `target`; when a folder on its way was removed
   * mid-run (ENOENT), makes the folders again and runs the step once more.
   */
  async inFolders<T>(target: string, signal: AbortSignal, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await this.remakeFolders(target, signal);
    return step();
  }

  /** The folder of `target` and the staging folder, made again where they were removed. */
  async remakeFolders(target: string, signal: AbortSignal): Promise<void> {
    await remakeBelow(this.rootDir, [path.dirname(target), this.stagingDir], signal);
  }

  /**
   * Writes `target` whole or not at all: a temporary file in the staging folder, renamed into
   * place. A durable file is flushed to the disk after it appears (see Flusher), and nobody
   * waits for that: a kill -9 needs only the rename.
   */
  async writeFile(target: string, content: string): Promise<void> {
    await this.limit(`writing ${target}`, (signal) =>
      this.inFolders(target, signal, async () => publish(await this.temporary(target, content, signal), target, signal)),
    );
    this.published(target);
  }

  /**
   * Writes `target` whole, only if no file has that name yet: true if this call made it. It is
   * flushed as `writeFile`'s are: a power cut that empties it leaves a claim nobody can read,
   * which blocks nobody (its process is gone with the power).
   */
  async createFile(target: string, content: string): Promise<boolean> {
    const made = await this.limit(`creating ${target}`, (signal) =>
      this.inFolders(target, signal, async () => publishIfAbsent(await this.temporary(target, content, signal), target, signal)),
    );
    if (made) this.published(target);
    return made;
  }

  /** Removes a temporary file of ours, within the limit; one that cannot be removed is left to the sweep. */
  removeTemporary(temporary: string): Promise<void> {
    return this.limit(`removing ${temporary}`, () => unlink(temporary)).catch(() => undefined);
  }

  /** `target` has just been given its name: a durable store flushes it to the disk soon (see Flusher). */
  published(target: string): void {
    this.flusher?.published(target);
  }

  readFile(file: string, maxBytes: number, cut = false): Promise<string | undefined> {
    return this.limit(`reading ${file}`, (signal) => readOwnFile(file, maxBytes, signal, cut));
  }

  private temporary(target: string, content: string, signal: AbortSignal): Promise<string> {
    return writeTemporary(this.stagingDir, path.basename(target), textFill(content), signal);
  }
}
