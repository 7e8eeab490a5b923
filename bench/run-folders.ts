/**
 * Where the benches' run folders go. Under `npm run bench`, every bench writes them in one
 * folder that run-all.ts removes once every bench is done (BENCH_RUN_FOLDERS); a bench run alone
 * writes them under os.tmpdir() (TMPDIR moves it) and removes them as it exits. Why not each
 * bench its own: on an ext4 without a journal, as this machine's, creating a file costs more than
 * 20 times what it costs on the same disk when quiet, for a minute or more after thousands were
 * removed (bench/disk.ts), so a bench that removes its folders as it ends makes the next bench's
 * calls pay for it.
 */
import { rmSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const shared = process.env.BENCH_RUN_FOLDERS;

/** The folder the run folders are made in. */
export const runFoldersRoot = (): string => shared ?? os.tmpdir();

const made: string[] = [];
if (!shared)
  process.once('exit', () => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

export async function tempOutputDir(): Promise<string> {
  const dir = path.join(runFoldersRoot(), `parallel-llm-bench-${process.pid}-${made.length}`);
  await mkdir(dir, { recursive: true });
  made.push(dir);
  return dir;
}

/** A folder of many files made elsewhere (an npm cache, an install), removed with the run folders. */
export async function removeLater(dir: string): Promise<void> {
  // Moved into run-all's folder, it goes with it; on another file system, it goes as this bench exits.
  const moved =
    shared &&
    (await rename(dir, path.join(shared, path.basename(dir))).then(
      () => true,
      () => false,
    ));
  if (!moved) made.push(dir);
}
