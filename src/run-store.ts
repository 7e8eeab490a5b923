import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where runs are saved: one new folder per call under the output dir, named so that
 * folders sort by time and never collide. Files are private to the user and appear
 * whole or not at all.
 */
export class RunStore {
  constructor(readonly rootDir: string) {}

  async createRun(now = new Date()): Promise<RunFolder> {
    await mkdir(this.rootDir, { recursive: true, mode: 0o700 });
    const name = `${now.toISOString().replace(/:/g, '-')}_${randomBytes(4).toString('hex')}`;
    const dir = path.join(this.rootDir, name);
    await mkdir(dir, { mode: 0o700 });
    return new RunFolder(dir);
  }
}

export class RunFolder {
  /** Writes of one file go in order, so a slower older version never replaces a newer one. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(readonly dir: string) {}

  get name(): string {
    return path.basename(this.dir);
  }

  /** Writes `fileName` completely or not at all; returns its full path. */
  write(fileName: string, content: string): Promise<string> {
    const target = path.join(this.dir, fileName);
    const previous = this.queues.get(fileName) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => writeFileAtomic(target, content));
    this.queues.set(fileName, next);
    return next.then(() => target);
  }
}

export async function writeFileAtomic(target: string, content: string): Promise<void> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
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

/** A model id as a file-name part: `openai/gpt-5` becomes `openai_gpt-5`. */
export function fileSafe(modelId: string): string {
  return modelId.replace(/[^A-Za-z0-9._-]+/g, '_');
}
