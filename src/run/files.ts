import type { Logger } from 'pino';
import type { WriteOptions } from '../store/coalesce.js';
import { fileSafe, type RunFolder } from '../store/run-store.js';
import type { RunRecord } from './record.js';

export interface AnswerWriter {
  /** A promise when the file is behind: the reader waits for it before it reads more. */
  write(piece: string): void | Promise<void>;
  finish(): Promise<string | undefined>;
  discard(): Promise<void>;
}

/**
 * A run's files: answers as they arrive, final.md, and the journal (run.json). The folder is
 * made while the models are asked, since nothing needs it before the first answer. A file that
 * cannot be written costs the run nothing but a warning: the answer still reaches the user.
 */
export class RunFiles {
  /** Where the folder is, known before it exists; undefined once it could not be made. */
  dir: string | undefined;

  constructor(
    dir: string,
    private readonly folder: Promise<RunFolder | undefined>,
    private readonly warn: (message: string) => void,
    private readonly log: Logger,
  ) {
    this.dir = dir;
    void folder.then((made) => {
      if (!made) this.dir = undefined;
    });
  }

  /** Saves `text` as `name`; resolves to the name once it is on disk, or undefined (with a warning) when it could not be. */
  async save(name: string, text: string, options: WriteOptions = {}): Promise<string | undefined> {
    const folder = await this.folder;
    if (!folder) return undefined;
    try {
      await folder.write(name, text, options);
      return name;
    } catch (error) {
      return this.failed(name, error);
    }
  }

  private failed(name: string, error: unknown): undefined {
    const message = `could not save ${name}: ${(error as Error).message}`;
    this.warn(message);
    this.log.error({ err: error }, message);
    return undefined;
  }

  /**
   * A file written as its text arrives (an answer too long to hold whole): `finish` resolves
   * to its name once it is whole on disk, or to undefined, with a warning (unless `warn` is
   * false: the caller has another way), when it could not be. `flush`: see RunFolder.writer.
   */
  writer(name: string, { warn = true, flush = false } = {}): AnswerWriter {
    const opened = this.folder.then((folder) => folder?.writer(name, { flush })).catch((error: unknown) => this.failed(name, error));
    // Once the file is open, pieces go to it directly, and its request to wait (it is behind) goes back to the reader.
    let open: Awaited<typeof opened> | undefined;
    void opened.then((writer) => (open = writer));
    return {
      write: (piece) => (open ? open.write(piece) : opened.then((writer) => writer?.write(piece))),
      finish: async () => {
        const writer = await opened;
        return writer?.finish().then(
          () => name,
          (error: unknown) => (warn ? this.failed(name, error) : undefined),
        );
      },
      discard: async () => {
        await (await opened)?.discard();
      },
    };
  }

  /**
   * Rewrites run.json, true once it is on disk; each rewrite replaces the last whole, so a crash
   * leaves the latest step that completed. One the disk refuses (ENOSPC, EIO) is tried again
   * until it lands, so the journal catches up without waiting for the run's next step. With
   * `after`, it is put in place only once the files it names are (see Disk.writeFile).
   */
  async saveRecord(record: RunRecord, after?: Promise<boolean>): Promise<boolean> {
    return (await this.save('run.json', `${JSON.stringify(record, null, 2)}\n`, { catchUp: true, after })) !== undefined;
  }

  /** Settles once the journal's latest entry is on disk. */
  async recordFlushed(): Promise<void> {
    await (await this.folder)?.flushed('run.json');
  }
}

/** The file a candidate's answer (or, with another suffix, its reasoning) is saved as. */
export const candidateFile = (candidate: { index: number; model: string }, suffix = '.md') =>
  `candidate-${candidate.index}_${fileSafe(candidate.model)}${suffix}`;
