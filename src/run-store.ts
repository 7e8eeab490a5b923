import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Temporary files older than this in the staging folder were left by a killed process. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Where runs are saved: one new folder per call under the output dir, named so that
 * folders sort by time and never collide. Files are private to the user and appear
 * whole or not at all: each is written in a staging folder beside the runs (the same
 * file system, so the final rename is atomic), so even a process killed mid-write
 * leaves only complete files in a run folder.
 */
export class RunStore {
  private readonly stagingDir: string;
  private swept = false;

  constructor(readonly rootDir: string) {
    this.stagingDir = path.join(rootDir, '.staging');
  }

  newRunId(now = new Date()): string {
    return `${now.toISOString().replace(/:/g, '-')}_${randomBytes(4).toString('hex')}`;
  }

  async createRun(id = this.newRunId()): Promise<RunFolder> {
    await mkdir(this.stagingDir, { recursive: true, mode: 0o700 });
    if (!this.swept) {
      this.swept = true;
      // Housekeeping only: a file it cannot remove must not cost this call its folder.
      await sweepStale(this.stagingDir, Date.now()).catch(() => undefined);
    }
    const dir = path.join(this.rootDir, id);
    await mkdir(dir, { mode: 0o700 });
    return new RunFolder(dir, this.stagingDir);
  }

  async openRun(id: string): Promise<RunFolder | undefined> {
    if (!isRunId(id)) return undefined;
    const dir = path.join(this.rootDir, id);
    const info = await stat(dir).catch(() => undefined);
    return info?.isDirectory() ? new RunFolder(dir, this.stagingDir) : undefined;
  }

  async listRuns(limit: number): Promise<string[]> {
    const names = await readdir(this.rootDir).catch(() => []);
    return names.filter(isRunId).sort().reverse().slice(0, limit);
  }

  async writeIndex(key: string, value: string): Promise<void> {
    const dir = path.join(this.rootDir, '.requests');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(dir, key), value, this.stagingDir);
  }

  async readIndex(key: string): Promise<string | undefined> {
    return readFile(path.join(this.rootDir, '.requests', key), 'utf8').catch(() => undefined);
  }
}

export const isRunId = (id: string): boolean => /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z_[0-9a-f]{8}$/.test(id);

export class RunFolder {
  /** Writes of one file go in order, so a slower older version never replaces a newer one. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    readonly dir: string,
    private readonly stagingDir: string,
  ) {}

  get name(): string {
    return path.basename(this.dir);
  }

  async read(fileName: string, maxBytes: number): Promise<string | undefined> {
    const handle = await open(path.join(this.dir, fileName), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      const buffer = Buffer.alloc(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  }

  async createExclusive(fileName: string, content: string): Promise<boolean> {
    const handle = await open(path.join(this.dir, fileName), 'wx', 0o600).catch(() => undefined);
    if (!handle) return false;
    await handle.writeFile(content);
    await handle.close();
    return true;
  }

  async list(): Promise<string[]> {
    return readdir(this.dir);
  }

  /** Writes `fileName` completely or not at all; returns its full path. */
  write(fileName: string, content: string): Promise<string> {
    const target = path.join(this.dir, fileName);
    const previous = this.queues.get(fileName) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => writeFileAtomic(target, content, this.stagingDir));
    this.queues.set(fileName, next);
    return next.then(() => target);
  }
}

/** Writes to a temporary file in `stagingDir` (default: beside the target), flushes it, then renames it into place. */
export async function writeFileAtomic(target: string, content: string, stagingDir = path.dirname(target)): Promise<void> {
  const temporary = path.join(stagingDir, `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, target).catch(async (error: unknown) => {
    await rm(temporary, { force: true });
    throw error;
  });
}

async function sweepStale(dir: string, now: number): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && now - info.mtimeMs > STALE_MS) await rm(file, { recursive: true, force: true });
  }
}

/** File systems refuse names over 255 bytes; a model id can be longer. */
const MAX_ID_CHARS = 100;

/**
 * A model id as a file-name part: `openai/gpt-5` becomes `openai_gpt-5`. A very long id is
 * cut, with a hash of the whole id so that two long ids never share a name.
 */
export function fileSafe(modelId: string): string {
  const safe = modelId.replace(/[^A-Za-z0-9._-]+/g, '_');
  if (safe.length <= MAX_ID_CHARS) return safe;
  return `${safe.slice(0, MAX_ID_CHARS)}~${createHash('sha256').update(modelId).digest('hex').slice(0, 8)}`;
}
