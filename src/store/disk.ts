import path from 'node:path';
import { FileWriter } from './file-writer.js';
import { flushFile, publish, publishIfAbsent, readOwnFile, textFill, writeTemporary } from './files.js';
import { remakeBelow } from './private-dir.js';
import { withTimeLimit } from './time-limit.js';

/**
 * What a store and its run folders share: the output folder and its staging folder for
 * temporary files, the time limit, durability.
 */
export class Disk {
  readonly stagingDir: string;

  constructor(
    readonly rootDir: string,
    private readonly opTimeoutMs: number,
    private readonly durable: boolean,
  ) {
    this.stagingDir = path.join(rootDir, '.staging');
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
   * place. A durable file is flushed to the disk right after it appears, and nobody waits for
   * that: a reply must not wait on the disk's flush (a kill -9 needs only the rename).
   */
  async writeFile(target: string, content: string): Promise<void> {
    await this.limit(`writing ${target}`, (signal) =>
      this.inFolders(target, signal, async () => publish(await this.temporary(target, content, false, signal), target, signal)),
    );
    if (this.durable) void this.limit(`flushing ${target}`, (signal) => flushFile(target, signal)).catch(() => undefined);
  }

  /** Writes `target` whole, only if no file has that name yet: true if this call made it. */
  createFile(target: string, content: string): Promise<boolean> {
    return this.limit(`creating ${target}`, (signal) =>
      this.inFolders(target, signal, async () => {
        const temporary = await this.temporary(target, content, this.durable, signal);
        return publishIfAbsent(temporary, target, signal);
      }),
    );
  }

  /** A file written piece by piece, then given its name whole. */
  writer(target: string): FileWriter {
    return new FileWriter(this, target);
  }

  readFile(file: string, maxBytes: number, cut = false): Promise<string | undefined> {
    return this.limit(`reading ${file}`, (signal) => readOwnFile(file, maxBytes, signal, cut));
  }

  private temporary(target: string, content: string, durable: boolean, signal: AbortSignal): Promise<string> {
    return writeTemporary(this.stagingDir, path.basename(target), textFill(content), durable, signal);
  }
}
