import { lstat, mkdir, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { RequestClaims } from './claims.js';
import { Disk } from './disk.js';
import { FileWriter } from './file-writer.js';
import { sweepStaleTemporaries } from './files.js';
import { LeaseKeeper, Leases } from './leases.js';
import { FILE_NAME, RUN_ID, checkName, isRunId, newRunId } from './names.js';
import { checkRootDir, ensurePrivateDir, makeDirs, unlessCode, unsafeDirReason } from './private-dir.js';
import { StoreError } from './store-error.js';
import type { Claim, LatestClaim, Lease, RunPlace, RunStorage, TextWriter } from './store.js';

/** How long one step on the disk may take, unless the store is told otherwise. */
const DEFAULT_OP_TIMEOUT_MS = 5000;

export interface StoreOptions {
  /** The time limit of each file operation, in ms. */
  opTimeoutMs?: number;
  /** Flush each file to the disk soon after it appears, against power loss (see Disk.published). */
  durable?: boolean;
}

/** Where runs are kept under these settings (the one place that picks the store); undefined when saving is off. */
export function runStorage(config: Pick<Config, 'saveOutputs' | 'outputDir'>): RunStorage | undefined {
  return config.saveOutputs ? new RunStore(config.outputDir) : undefined;
}

/**
 * One private folder per run under the output folder, named to sort by time. Each file is written in a
 * staging folder beside the runs and renamed into place (the same file system), so it appears whole or not at all even after a kill -9.
 */
export class RunStore implements RunStorage {
  readonly rootDir: string;
  readonly claims: RequestClaims;
  readonly leases: Leases;
  private readonly disk: Disk;
  /** The folders are checked once: once they are ours, none but us can change them. */
  private prepared: Promise<void> | undefined;
  private swept = false;

  constructor(rootDir: string, options: StoreOptions = {}) {
    this.rootDir = path.resolve(rootDir);
    this.disk = new Disk(this.rootDir, options.opTimeoutMs ?? DEFAULT_OP_TIMEOUT_MS, options.durable ?? true);
    const prepare = (signal: AbortSignal) => this.prepare(signal);
    this.claims = new RequestClaims(path.join(this.rootDir, '.requests'), this.disk, prepare);
    this.leases = new Leases(path.join(this.rootDir, '.owners'), this.disk, prepare);
  }

  async createRun(name = newRunId()): Promise<RunFolder> {
    checkName(name, RUN_ID, 'run id');
    const folder = await this.disk.limit(`creating a run folder in ${this.rootDir}`, async (signal) => {
      await this.prepare(signal);
      // Not recursive: fails if the name exists, so the folder is certainly new and ours.
      const dir = path.join(this.rootDir, name);
      await this.disk.inFolders(dir, signal, () => mkdir(dir, { mode: 0o700 }));
      return new RunFolder(name, this.disk, true);
    });
    await this.sweepOnce();
    return folder;
  }

  /** Undefined when `id` is not a run id, or names nothing, or not a real folder of ours. */
  async openRun(id: string): Promise<RunFolder | undefined> {
    if (!isRunId(id)) return undefined;
    return this.disk.limit(`opening run ${id} in ${this.rootDir}`, async (signal) => {
      const info = await lstat(path.join(this.rootDir, id)).catch(unlessCode('ENOENT', 'ENOTDIR'));
      if (!info || unsafeDirReason(info, id)) return undefined;
      await this.prepare(signal);
      return new RunFolder(id, this.disk, false);
    });
  }

  latestClaim(key: string): Promise<LatestClaim | undefined> {
    return this.claims.latest(key);
  }

  makeClaim(key: string, generation: number, claim: Claim): Promise<boolean> {
    return this.claims.claim(key, generation, claim);
  }

  lease(instance: string): Lease {
    return new LeaseKeeper(this.leases, instance);
  }

  leaseFresh(instance: string, maxAgeMs?: number): Promise<boolean> {
    return this.leases.fresh(instance, maxAgeMs).catch(() => true);
  }

  listRuns(limit: number): Promise<string[]> {
    return this.disk.limit(`listing runs in ${this.rootDir}`, async () => {
      const entries = (await readdir(this.rootDir, { withFileTypes: true }).catch(unlessCode('ENOENT'))) ?? [];
      const ids = entries.filter((entry) => entry.isDirectory() && isRunId(entry.name)).map((entry) => entry.name);
      return ids.sort().reverse().slice(0, limit);
    });
  }

  /** The output folder (made 0700 where missing) and the staging folder, checked to be ours alone; a failure is not remembered. */
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

  /** Housekeeping that must never cost a call its folder. */
  private async sweepOnce(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    const staging = this.disk.stagingDir;
    await this.disk.limit(`sweeping ${staging}`, (signal) => sweepStaleTemporaries(staging, Date.now(), signal)).catch(() => undefined);
  }
}

export class RunFolder implements RunPlace {
  readonly dir: string;
  /** The only files `discard` may remove. */
  private readonly written = new Set<string>();

  constructor(
    readonly name: string,
    private readonly disk: Disk,
    /** Whether this process created the folder (not just opened it). */
    private readonly created: boolean,
  ) {
    this.dir = path.join(disk.rootDir, name);
  }

  /** Resolves with the file's path once this content is saved. */
  async write(fileName: string, content: string): Promise<string> {
    const file = this.path(fileName);
    // Noted first: a write that fails may still have left its file.
    this.written.add(fileName);
    await this.disk.writeFile(file, content);
    return file;
  }

  /** Not flushed to the disk: flushing hundreds of megabytes would hold the threads every other file operation needs. */
  writer(fileName: string): TextWriter {
    const target = this.path(fileName);
    this.written.add(fileName);
    return new FileWriter(this.disk, target);
  }

  async read(fileName: string, maxBytes: number): Promise<string | undefined> {
    return this.disk.readFile(this.path(fileName), maxBytes);
  }

  async readStart(fileName: string, maxBytes: number): Promise<string | undefined> {
    return this.disk.readFile(this.path(fileName), maxBytes, true);
  }

  list(): Promise<string[]> {
    return this.disk.limit(`listing ${this.dir}`, async () => {
      const entries = await readdir(this.dir, { withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile() && FILE_NAME.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    });
  }

  /** Removes the files this object wrote, then the folder, which stays if anything else appeared in it. */
  discard(): Promise<void> {
    if (!this.created) return Promise.reject(new StoreError('ERR_STORE_UNSAFE', `${this.dir} was not created by this process`));
    return this.disk.limit(`removing ${this.dir}`, async () => {
      for (const fileName of this.written) await unlink(path.join(this.dir, fileName)).catch(unlessCode('ENOENT'));
      await rmdir(this.dir);
    });
  }

  private path(fileName: string): string {
    checkName(fileName, FILE_NAME, 'file name');
    return path.join(this.dir, fileName);
  }
}
