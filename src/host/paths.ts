import { createHash } from 'node:crypto';
import { chmod, lstat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { removeOwnFile, withinFileSystem } from '../store/files.js';
import { makeDirs, ownedByUs } from '../store/private-dir.js';

/** Unix sockets take paths of at most 107 bytes on Linux (103 on macOS): past that, no host. */
const MAX_SOCKET_PATH_BYTES = 100;

/** Where one run host lives. */
export interface HostPaths {
  /** The private folder (0700) that holds them; named pipes on Windows live elsewhere. */
  dir: string;
  /** A hash of the host's version and every setting the host itself uses. */
  id: string;
  socket: string;
  lock: string;
  log: string;
}

/**
 * The settings a run host executes runs with: clients with the same ones share one host, so a
 * host never runs a request with settings other than its starter's, nor for another version.
 */
function hostSettings(config: Config, version: string): unknown[] {
  return [
    version,
    config.apiKey,
    config.baseUrl,
    config.outputDir,
    config.saveOutputs,
    config.maxConcurrency,
    config.timeoutMs,
    config.idleTimeoutMs,
    config.maxRetries,
    config.synthesisMaxChars,
    config.maxPromptChars,
    config.maxAnswerChars,
    config.logLevel,
    config.logFile,
  ];
}

export function hostPaths(config: Config, version: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): HostPaths {
  const id = createHash('sha256')
    .update(JSON.stringify(hostSettings(config, version)))
    .digest('hex')
    .slice(0, 16);
  const dir = config.hostDir ?? defaultHostDir(env, platform);
  const socket = platform === 'win32' ? `\\\\.\\pipe\\parallel-llm-mcp-${os.userInfo().username}-${id}` : path.join(dir, `${id}.sock`);
  return { dir, id, socket, lock: path.join(dir, `${id}.lock`), log: path.join(dir, `${id}.log`) };
}

/** Why no socket can be made at these paths, or undefined when one can. */
export function socketProblem(paths: HostPaths, platform = process.platform): string | undefined {
  if (platform === 'win32' || Buffer.byteLength(paths.socket) <= MAX_SOCKET_PATH_BYTES) return undefined;
  return `the run host's socket path (${paths.socket}) is longer than a Unix socket allows; set PARALLEL_LLM_HOST_DIR to a shorter folder`;
}

/** $XDG_RUNTIME_DIR (private to the user, cleared at logout), else a folder of the user's own in the temporary folder. */
function defaultHostDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (platform === 'win32')
    return path.win32.join(env.LOCALAPPDATA ?? path.win32.join(os.homedir(), 'AppData', 'Local'), 'parallel-llm-mcp', 'host');
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'parallel-llm-mcp');
  return path.join(os.tmpdir(), `parallel-llm-mcp-${process.getuid?.() ?? os.userInfo().username}`);
}

/** Each step on the host's folder has this long: a hung file system must not hang a client. */
const STEP_MS = 5000;
const withinStep = (what: string, work: (signal: AbortSignal) => Promise<void>) => withinFileSystem(STEP_MS, what, work);

/**
 * Makes the run host's folder (0700) or checks the one there: the socket in it runs paid requests
 * on the user's key, so it must be a real folder of the user's that no one else can enter.
 */
export async function ensureHostDir(dir: string): Promise<void> {
  await withinStep(`making ${dir}`, async (signal) => {
    await makeDirs(dir, signal);
    const info = await lstat(dir);
    if (info.isSymbolicLink() || !info.isDirectory()) throw new Error(`${dir} is not a folder`);
    if (!ownedByUs(info)) throw new Error(`${dir} belongs to another user (uid ${info.uid})`);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) await chmod(dir, 0o700);
  });
}

/** Removes a socket or lock file of ours, never anything else, never through a link. */
export async function removeOwnHostFile(file: string, kind: 'socket' | 'file'): Promise<void> {
  await withinStep(`removing ${file}`, () => removeOwnFile(file, kind));
}
