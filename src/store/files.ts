import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { withinMs } from '../clock.js';
import { NOFOLLOW, NONBLOCK } from './open-flags.js';
import { ownedByUs, unlessCode } from './private-dir.js';
import { StoreError } from './store-error.js';

/** Our temporary files, `.<final name>.<8 hex>.tmp`: the only names the sweep may remove. */
const TEMP_NAME = /^\.[A-Za-z0-9._~-]+\.[0-9a-f]{8}\.tmp$/;
/** A temporary file this old was left by a killed process: no write takes an hour. */
const STALE_MS = 60 * 60 * 1000;

/**
 * A file system can stop answering (a dead network mount): past `ms`, `work`'s signal aborts, so it
 * never lands late over something newer, and the caller gets ERR_STORE_TIMEOUT naming `what`.
 */
export function withinFileSystem<T>(ms: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return withinMs(ms, work, () => new StoreError('ERR_STORE_TIMEOUT', `${what}: the file system did not answer within ${ms} ms`));
}

export const temporaryName = (stagingDir: string, fileName: string): string =>
  path.join(stagingDir, `.${fileName}.${randomBytes(4).toString('hex')}.tmp`);

type Fill = (handle: FileHandle, signal: AbortSignal) => Promise<void>;

export const textFill =
  (content: string): Fill =>
  (handle) =>
    handle.writeFile(content, 'utf8');

const COPY_CHUNK_BYTES = 1024 * 1024;

/** Copies an open file: the only copy left of a file whose folder was removed. */
export const copyFill =
  (source: FileHandle): Fill =>
  async (handle, signal) => {
    const buffer = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
    for (let position = 0; ;) {
      signal.throwIfAborted();
      const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return;
      for (let written = 0; written < bytesRead;) written += (await handle.write(buffer, written, bytesRead - written)).bytesWritten;
      position += bytesRead;
    }
  };

/** Fills a new temporary file and returns its path; if any step fails, closing included (where a network file system reports a lost write), it is removed. */
export async function writeTemporary(stagingDir: string, fileName: string, fill: Fill, signal: AbortSignal): Promise<string> {
  const temporary = temporaryName(stagingDir, fileName);
  const handle = await openNew(temporary);
  try {
    await fill(handle, signal);
    signal.throwIfAborted();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close().catch(async (error: unknown) => {
    await unlink(temporary).catch(() => undefined);
    throw error;
  });
  return temporary;
}

/** Opens a new file of ours: never an existing name, never through a symbolic link, 0600. */
export const openNew = (file: string, access: number = constants.O_WRONLY): Promise<FileHandle> =>
  open(file, access | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);

export async function flushFile(file: string, signal: AbortSignal): Promise<void> {
  const handle = await open(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  try {
    signal.throwIfAborted();
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Renames a finished temporary file into place, replacing any older version atomically. */
export async function publish(temporary: string, target: string, signal: AbortSignal): Promise<void> {
  try {
    // A write that ran out of time must not land later over a newer one.
    signal.throwIfAborted();
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Like `publish`, only if the name is free (a hard link fails on an existing name): true if it was. */
export async function publishIfAbsent(temporary: string, target: string, signal: AbortSignal): Promise<boolean> {
  try {
    signal.throwIfAborted();
    await link(temporary, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** Undefined when there is no such regular file of ours; rejects with ERR_STORE_TOO_LARGE past `maxBytes` (unless `cut`). */
export async function readOwnFile(file: string, maxBytes: number, signal: AbortSignal, cut = false): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK).catch(unlessCode('ENOENT', 'ENOTDIR', 'ELOOP', 'EMLINK'));
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || !ownedByUs(info)) return undefined;
    // One byte more than allowed tells a file that grew past the limit since stat.
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + (cut ? 0 : 1));
    let length = 0;
    while (length < buffer.length) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new StoreError('ERR_STORE_TOO_LARGE', `${file} is larger than ${maxBytes} bytes`);
    // A cut may fall inside a character: a streaming decode leaves its first bytes out.
    return cut ? new TextDecoder().decode(buffer.subarray(0, length), { stream: true }) : buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

/** Removes `file` only if it is ours and of the kind asked: never a link, never anything else. */
export async function removeOwnFile(file: string, kind: 'file' | 'socket' = 'file'): Promise<void> {
  const info = await lstat(file).catch(unlessCode('ENOENT', 'ENOTDIR'));
  if (!info || !ownedByUs(info)) return;
  if (kind === 'socket' ? info.isSocket() : info.isFile()) await unlink(file).catch(unlessCode('ENOENT'));
}

/** Removes what killed processes left in our staging folder: only regular files of ours, named as our temporaries, untouched for STALE_MS. */
export async function sweepStaleTemporaries(stagingDir: string, now: number, signal: AbortSignal): Promise<void> {
  for (const entry of await readdir(stagingDir, { withFileTypes: true })) {
    signal.throwIfAborted();
    if (!entry.isFile() || !TEMP_NAME.test(entry.name)) continue;
    const file = path.join(stagingDir, entry.name);
    const info = await lstat(file).catch(() => undefined);
    if (info?.isFile() && ownedByUs(info) && now - info.mtimeMs > STALE_MS) await unlink(file).catch(() => undefined);
  }
}
