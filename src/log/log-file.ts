import { closeSync, constants, fstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/config.js';
import { NOFOLLOW, NONBLOCK } from '../store/open-flags.js';

/**
 * Opens PARALLEL_LLM_LOG_FILE for appending, once, at start: created 0600, never through a
 * symbolic link, its missing folders created 0700. Any problem is a ConfigError naming the
 * variable, for one clear line on stderr. Synchronous, as it happens before anything else runs.
 */
export function openLogFile(file: string): number {
  const absolute = path.resolve(file);
  try {
    makeDirsSync(path.dirname(absolute));
    const fd = openSync(absolute, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | NONBLOCK, 0o600);
    const info = fstatSync(fd);
    // A character device is fine (/dev/null, say); a FIFO or a socket is not a log file.
    if (info.isFile() || info.isCharacterDevice()) return fd;
    closeSync(fd);
    throw new ConfigError(`PARALLEL_LLM_LOG_FILE (${file}) is not a regular file`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`PARALLEL_LLM_LOG_FILE (${file}) ${explain(error as NodeJS.ErrnoException)}`);
  }
}

function explain(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EISDIR':
      return 'is a directory: name a file';
    case 'ELOOP':
    case 'EMLINK':
      return 'is a symbolic link, which the server does not follow: name the file it points to';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `cannot be written (${error.code}): choose a file you can write`;
    default:
      return `cannot be opened: ${error.message}`;
  }
}

/** The missing folders of the path, made 0700 one at a time (no recursive mkdir: it loops for ever under /proc on Node 20). */
function makeDirsSync(dir: string): void {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current) && path.dirname(current) !== current; current = path.dirname(current)) missing.push(current);
  for (const folder of missing.reverse()) mkdirSync(folder, { mode: 0o700 });
}

function existsSync(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
