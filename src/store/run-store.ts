import { lstat, mkdir, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { RequestClaims } from './claims.js';
import { CATCH_UP_BACKOFF, CoalescingWriter, type Backoff } from './coalesce.js';
import { Disk } from './disk.js';
import { FileWriter } from './file-writer.js';
import { sweepStaleTemporaries } from './files.js';
import { LeaseKeeper, Leases } from './leases.js';
import { FILE_NAME, RUN_ID, checkName, isRunId, newRunId } from './names.js';
import { checkRootDir, ensurePrivateDir, makeDirs, unlessCode, unsafeDirReason } from './private-dir.js';
import { StoreError } from './store-error.js';
import type { Claim, Lease, RunPlace, RunStorage, Taken, TextWriter } from './store.js';
import { DEFAULT_OP_TIMEOUT_MS } from './time-limit.js';

export { StoreError, type StoreErrorCode } from './store-error.js';
export { fileSafe, isRunId, newRunId } from './names.js';

export interface StoreOptions {
  /** The time limit of each file operation, in ms; past it the operation rejects with ERR_STORE_TIMEOUT. */
  opTimeoutMs?: number;
  /** Flush each file to the disk soon after it appears (see Flusher). A kill -9 needs only write + rename; this guards against power loss. */
  durable?: boolean;
  /** When a write made with `catchUp` is tried again after it failed. */
  catchUp?: Backoff;
}

/**
 * Where runs are saved: one new folder per run under the output folder, named so that
 * folders sort by time and never collide, readable only by the user. Files appear whole or
 * not at all, even if the process is killed: each is written under a temporary name in a
 * private staging folder beside the runs (the same file system, so the rename into the run
 * folder is atomic). The store removes nothing but its own stale temporary files and what
 * `RunFolder.discard` names, never follows a symbolic link inside its tree, and gives every
 * file operation a time limit.
 */
export class RunStore implements RunStorage {
  readonly rootDir: string;
  /** Who runs each request: `.requests/<key>/<generation>.json`. */
  readonly claims: RequestClaims;
  /** The leases of live processes, for those the kernel cannot be asked about: `.owners/<instance>`. */
  readonly leases: Leases;
  private readonly disk: Disk;
  private readonly catchUp: Backoff;
  /** The folders checked once, while this process lives: none but us can change them. */
  private prepared: Promise<void> | undefined;
  private swept = false;

  constructor(rootDir: string, options: StoreOptions = {}) {
    this.rootDir = path.resolve(rootDir);
    this.disk = new Disk(this.rootDir, options.opTimeoutMs ?? DEFAULT_OP_TIMEOUT_MS, options.durable ?? true);
    this.catchUp = options.catchUp ?? CATCH_UP_BACKOFF;
    const prepare = (signal: AbortSignal) => this.prepare(signal);
    this.claims = new RequestClaims(path.join(this.rootDir, '.requests'), this.disk, prepare);
    this.leases = new Leases(path.join(this.rootDir, '.owners'), this.disk, prepare);
  }

  async createRun(name = newRunId()): Promise<RunFolder> {
    checkName(name, RUN_ID, 'run id');
    const folder = await this.disk.limit(`creating a run folder in ${this.rootDir}`, async (signal) => {
      await this.prepare(signal);
      // Not recursive: fails if the name exists, so the folder is certainly new and ours. An
      // output folder removed since it was checked is made again, and checked again.
      const dir = path.join(this.rootDir, name);
      await this.disk.inFolders(dir, signal, () => mkdir(dir, { mode: 0o700 }));
      return new RunFolder(name, this.disk, this.catchUp, true);
    });
    await this.sweepOnce();
    return folder;
  }

  /** An existing run folder: undefined when `id` is not a run id, or names nothing, or not a real folder of ours. */
  async openRun(id: string): Promise<RunFolder | undefined> {
    if (!isRunId(id)) return undefined;
    return this.disk.limit(`opening run ${id} in ${this.rootDir}`, async (signal) => {
      const info = await lstat(path.join(this.rootDir, id)).catch(unlessCode('ENOENT', 'ENOTDIR'));
      if (!info || unsafeDirReason(info, id)) return undefined;
      await this.prepare(signal);
      return new RunFolder(id, this.disk, this.catchUp, false);
    });
  }

  claim(key: string, next: (latest: Claim | undefined) => Promise<Claim | undefined>): Promise<Taken> {
    return this.claims.take(key, next);
  }

  lease(instance: string): Lease {
    return new LeaseKeeper(this.leases, instance);
  }

  leaseFresh(instance: string, maxAgeMs?: number): Promise<boolean> {
    return this.leases.fresh(instance, maxAgeMs).catch(() => true);
  }

  /** The newest run ids, newest first; only folders named as we name runs. */
  listRuns(limit: number): Promise<string[]> {
    return this.disk.limit(`listing runs in ${this.rootDir}`, async () => {
      const entries = (await readdir(this.rootDir, { withFileTypes: true }).catch(unlessCode('ENOENT'))) ?? [];
      const ids = entries.filter((entry) => entry.isDirectory() && isRunId(entry.name)).map((entry) => entry.name);
      return ids.sort().reverse().slice(0, limit);
    });
  }

  /**
   * The output folder (created 0700 where missing) and the staging folder, checked to be ours
   * alone (the claims' and leases' folders are made when first needed). Once they are, only
   * we could change them, so the check is made once; a failure is not remembered, and the next
   * call checks again.
   */
  private prepare(signal: AbortSignal): Promise<void> {
    this.prepared ??= (async () => {
      await makeDirs(this.rootDir, signal);
      await checkRootDir(this.rootDir);
      await ensurePrivateDir(this.disk.stagingDir);
    })().catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  /** Once per store: housekeeping that must never cost a call its folder. */
  private async sweepOnce(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    const staging = this.disk.stagingDir;
    await this.disk.limit(`sweeping ${staging}`, (signal) => sweepStaleTemporaries(staging, Date.now(), signal)).catch(() => undefined);
  }
}

export class RunFolder implements RunPlace {
  readonly dir: string;
  private readonly writes: CoalescingWriter;
  /** What this process wrote here: the only files `discard` may remove. */
  private readonly written = new Set<string>();

  constructor(
    readonly name: string,
    private readonly disk: Disk,
    catchUp: Backoff,
    /** Whether this process created the folder (not just opened it). */
    private readonly created: boolean,
  ) {
    this.dir = path.join(disk.rootDir, name);
    this.writes = new CoalescingWriter((fileName, content) => this.disk.writeFile(path.join(this.dir, fileName), content), catchUp);
  }

  /**
   * Writes `fileName` whole or not at all; returns its full path. Writes of one file are
   * ordered and coalesced: the promise resolves once this content, or a newer one, is saved.
   * With `catchUp` (a journal), a failed write still rejects, and the file's latest content is
   * tried again, with backoff, until it lands: see `flushed`.
   */
  async write(fileName: string, content: string, options: { catchUp?: boolean } = {}): Promise<string> {
    checkName(fileName, FILE_NAME, 'file name');
    // Noted first: a write that catches up may land after this call has failed.
    this.written.add(fileName);
    await this.writes.write(fileName, content, options);
    return path.join(this.dir, fileName);
  }

  /** Whether the latest content written to `fileName` is not on disk yet. */
  dirty(fileName: string): boolean {
    return this.writes.dirty(fileName);
  }

  /** Settles once the latest content written to `fileName` is on disk (for a write without `catchUp`, or once it failed). */
  flushed(fileName: string): Promise<void> {
    return this.writes.flushed(fileName);
  }

  /**
   * Writes `fileName` piece by piece: it appears, whole, once `finish` resolves. With `flush`, it
   * is flushed to the disk after, as files written whole are (an answer of any length is not:
   * flushing hundreds of megabytes would hold the threads every other file operation needs).
   */
  writer(fileName: string, { flush = false } = {}): TextWriter {
    checkName(fileName, FILE_NAME, 'file name');
    const target = path.join(this.dir, fileName);
    const writer = new FileWriter(this.disk, target);
    return {
      write: (text) => writer.write(text),
      discard: () => writer.discard(),
      finish: async () => {
        await writer.finish();
        this.written.add(fileName);
        if (flush) this.disk.published(target);
        return target;
      },
    };
  }

  /** Writes `fileName` whole only if it does not exist yet: true if this call made it (another process may race for it). */
  async createExclusive(fileName: string, content: string): Promise<boolean> {
    checkName(fileName, FILE_NAME, 'file name');
    const made = await this.disk.createFile(path.join(this.dir, fileName), content);
    if (made) this.written.add(fileName);
    return made;
  }

  /** A file of ours in this folder, never through a symbolic link: undefined when absent; rejects when over `maxBytes`. */
  async read(fileName: string, maxBytes: number): Promise<string | undefined> {
    checkName(fileName, FILE_NAME, 'file name');
    return this.disk.readFile(path.join(this.dir, fileName), maxBytes);
  }

  /** The start of a file of ours, at most `maxBytes` of it (never a broken character): undefined when absent. */
  async readStart(fileName: string, maxBytes: number): Promise<string | undefined> {
    checkName(fileName, FILE_NAME, 'file name');
    return this.disk.readFile(path.join(this.dir, fileName), maxBytes, true);
  }

  /** The names of the regular files here, sorted. */
  list(): Promise<string[]> {
    return this.disk.limit(`listing ${this.dir}`, async () => {
      const entries = await readdir(this.dir, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && FILE_NAME.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    });
  }

  /**
   * Removes a folder this process created (a probe, say): the files this object wrote, then
   * the folder, which stays if anything else has appeared in it. Nothing else is removed.
   */
  discard(): Promise<void> {
    if (!this.created) return Promise.reject(new StoreError('ERR_STORE_UNSAFE', `${this.dir} was not created by this process`));
    return this.disk.limit(`removing ${this.dir}`, async () => {
      for (const fileName of this.written) await unlink(path.join(this.dir, fileName)).catch(unlessCode('ENOENT'));
      await rmdir(this.dir);
    });
  }
}
