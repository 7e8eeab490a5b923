import path from 'node:path';
import { FileWriter } from './file-writer.js';
import { flushFile, publish, publishIfAbsent, readOwnFile, writeTemporary } from './files.js';
import { withTimeLimit } from './time-limit.js';

/** What a store and its run folders share: the staging folder for temporary files, the time limit, durability. */
export class Disk {
  constructor(
    readonly stagingDir: string,
    private readonly opTimeoutMs: number,
    private readonly durable: boolean,
  ) {}

  limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withTimeLimit(this.opTimeoutMs, what, work);
  }

  /**
   * Writes `target` whole or not at all: a temporary file in the staging folder, renamed into
   * place. A durable file is flushed to the disk right after it appears, and nobody waits for
   * that: a reply must not wait on the disk's flush (a kill -9 needs only the rename).
   */
  async writeFile(target: string, content: string): Promise<void> {
    await this.limit(`writing ${target}`, async (signal) => {
      await publish(await writeTemporary(this.stagingDir, path.basename(target), content, false, signal), target, signal);
    });
    if (this.durable) void this.limit(`flushing ${target}`, (signal) => flushFile(target, signal)).catch(() => undefined);
  }

  /** Writes `target` whole, only if no file has that name yet: true if this call made it. */
  createFile(target: string, content: string): Promise<boolean> {
    return this.limit(`creating ${target}`, async (signal) =>
      publishIfAbsent(await writeTemporary(this.stagingDir, path.basename(target), content, this.durable, signal), target, signal),
    );
  }

  /** A file written piece by piece, then given its name whole. */
  writer(target: string): FileWriter {
    return new FileWriter(this.stagingDir, target, (what, work) => this.limit(what, work));
  }

  readFile(file: string, maxBytes: number, cut = false): Promise<string | undefined> {
    return this.limit(`reading ${file}`, (signal) => readOwnFile(file, maxBytes, signal, cut));
  }
}
