import type { Stats } from 'node:fs';
import { lstat, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { StoreError } from './store-error.js';

/** Undefined on Windows, where owners and mode bits do not work this way: the checks that need them are skipped there. */
const ourUid = process.getuid?.();

export const ownedByUs = (info: Stats): boolean => ourUid === undefined || info.uid === ourUid;

/** Why `info` (lstat or stat of `dir`) is not a folder that only we can change; undefined when it is one. */
export function unsafeDirReason(info: Stats, dir: string): string | undefined {
  if (info.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!info.isDirectory()) return `${dir} is not a directory`;
  if (!ownedByUs(info)) return `${dir} belongs to another user (uid ${info.uid})`;
  if (ourUid !== undefined && (info.mode & 0o022) !== 0) {
    return `${dir} can be changed by other users (mode ${(info.mode & 0o777).toString(8)}): run chmod go-w ${dir}`;
  }
  return undefined;
}

/**
 * Links among the output folder's parents are the user's choice; the folder itself may be a link only if we
 * made it, and must lead to a folder only we can write in, so no one can swap a run folder under us.
 */
export async function checkRootDir(dir: string): Promise<void> {
  const link = await lstat(dir);
  if (link.isSymbolicLink() && !ownedByUs(link)) {
    throw new StoreError('ERR_STORE_UNSAFE', `refusing to save runs: ${dir} is a symbolic link made by another user (uid ${link.uid})`);
  }
  const reason = unsafeDirReason(await stat(dir), dir);
  if (reason) throw new StoreError('ERR_STORE_UNSAFE', `refusing to save runs: ${reason}`);
}

/** Makes (0700) or finds a folder inside the checked root; one we found is checked to be a real folder of ours. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  if (await madeDir(dir)) return;
  const reason = unsafeDirReason(await lstat(dir), dir);
  if (reason) throw new StoreError('ERR_STORE_UNSAFE', `refusing to use ${dir}: ${reason}`);
}

/** True if this call made `dir`, false if it was there. */
async function madeDir(dir: string): Promise<boolean> {
  return (await mkdir(dir, { mode: 0o700 }).then(() => true, unlessCode('EEXIST'))) === true;
}

/** Makes again the folders from `root` down to each of `dirs` after someone removed them mid-run, one level at a time, never through a link. */
export async function remakeBelow(root: string, dirs: string[], signal: AbortSignal): Promise<void> {
  const paths = dirs.map((dir) => {
    const relative = path.relative(root, dir);
    if (relative.startsWith('..') || path.isAbsolute(relative)) throw new StoreError('ERR_STORE_UNSAFE', `${dir} is not inside ${root}`);
    return relative;
  });
  await mkdir(root, { mode: 0o700 }).catch(unlessCode('EEXIST'));
  await checkRootDir(root);
  for (const relative of paths) {
    let current = root;
    for (const part of relative.split(path.sep).filter(Boolean)) {
      signal.throwIfAborted();
      current = path.join(current, part);
      await ensurePrivateDir(current);
    }
  }
}

/** Creates `dir` and its missing parents (0700) one at a time: Node 20's recursive mkdir loops for ever where mkdir fails oddly (under /proc). */
export async function makeDirs(dir: string, signal: AbortSignal): Promise<void> {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !(await exists(current)); current = path.dirname(current)) {
    signal.throwIfAborted();
    missing.push(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing.reverse()) {
    signal.throwIfAborted();
    await mkdir(folder, { mode: 0o700 }).catch(unlessCode('EEXIST'));
  }
}

const exists = async (file: string): Promise<boolean> => (await stat(file).then(() => true, unlessCode('ENOENT'))) === true;

/** A catch handler that swallows the given error codes and rethrows the rest. */
export const unlessCode =
  (...codes: string[]) =>
  (error: NodeJS.ErrnoException): undefined => {
    if (error.code !== undefined && codes.includes(error.code)) return undefined;
    throw error;
  };
