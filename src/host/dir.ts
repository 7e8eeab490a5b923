import { chmod, lstat } from 'node:fs/promises';
import { removeOwnFile } from '../store/files.js';
import { makeDirs, ownedByUs } from '../store/private-dir.js';
import { withTimeLimit } from '../store/time-limit.js';

/** Each step on the host's folder has this long: a hung file system must not hang a client. */
const STEP_MS = 5000;

/**
 * Makes the run host's folder (0700, its parents too) or checks the one there: it must be a
 * real folder of the user's own, which no one else can enter, since the socket in it is the way
 * to run paid requests on the user's key. A folder of ours with looser rights is made private.
 */
export async function ensureHostDir(dir: string): Promise<void> {
  await withTimeLimit(STEP_MS, `making ${dir}`, async (signal) => {
    await makeDirs(dir, signal);
    const info = await lstat(dir);
    if (info.isSymbolicLink() || !info.isDirectory()) throw new Error(`${dir} is not a folder`);
    if (!ownedByUs(info)) throw new Error(`${dir} belongs to another user (uid ${info.uid})`);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) await chmod(dir, 0o700);
  });
}

/** Removes a socket (or lock) file of ours at `file`, within the step's time: never anything else, never through a link. */
export async function removeOwnHostFile(file: string, kind: 'socket' | 'file'): Promise<void> {
  await withTimeLimit(STEP_MS, `removing ${file}`, () => removeOwnFile(file, kind));
}
