import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Deadline } from '../clock.js';
import { ensureHostDir, removeOwnHostFile, socketProblem, type HostPaths } from './paths.js';
import { HostRunService } from './host-run-service.js';
import { RUNTIME_FLAGS } from './runtime-flags.js';
import { connect } from './socket.js';
import { openNew } from '../store/files.js';
import { unlessCode } from '../store/private-dir.js';

/** How long a client waits for a run host to be there: started by itself or by another client. */
const START_MS = 10_000;
/** A start lock older than this was left by a starter that died. */
const STALE_LOCK_MS = 2 * START_MS;
/** A start lock whose holder has not named itself by then never will. */
const HALF_MADE_LOCK_MS = 1_000;
/** The host's threads share one glibc malloc arena rather than one each: less memory, no slower. */
const HOST_MALLOC_ARENAS = '1';

export type Reached = { runs: HostRunService } | { unavailable: string };

/**
 * The running host's runs, or (with `start`) those of one started now; or why there is none.
 * Of many clients starting at once, the one that takes the start lock spawns the host.
 */
export async function reachHost(paths: HostPaths, version: string, { start }: { start: boolean }): Promise<Reached> {
  const problem = socketProblem(paths);
  if (problem) return { unavailable: problem };
  if (!start)
    return openHost(paths, version).then(
      (runs) => ({ runs }),
      (error: Error) => ({ unavailable: error.message }),
    );
  try {
    await ensureHostDir(paths.dir);
  } catch (error) {
    return { unavailable: `the run host's folder cannot be used: ${(error as Error).message}` };
  }
  const deadline = Deadline.after(START_MS);
  while (deadline.msLeft() > 0) {
    const runs = await openHost(paths, version).catch(() => undefined);
    if (runs) return { runs };
    const started = await startHost(paths, deadline);
    if (started !== 'started' && started !== 'busy') return { unavailable: started.failed };
    if (started === 'busy') await sleep(50);
  }
  return { unavailable: `the run host did not answer on ${paths.socket} within ${START_MS / 1000} s` };
}

/** The host on the socket, if it is of this very version. */
async function openHost(paths: HostPaths, version: string): Promise<HostRunService> {
  return HostRunService.open(await connect(paths.socket), version).catch((error: Error) => {
    throw new Error(`${paths.socket}: ${error.message}`);
  });
}

type Started = 'started' | 'busy' | { failed: string };

/** Starts the host under the start lock; `busy` while another client holds it. */
async function startHost(paths: HostPaths, deadline: Deadline): Promise<Started> {
  if (!(await takeLock(paths.lock))) {
    if (await staleLock(paths.lock)) await removeOwnHostFile(paths.lock, 'file').catch(() => undefined);
    return 'busy';
  }
  try {
    return await spawnHost(paths, deadline);
  } finally {
    await removeOwnHostFile(paths.lock, 'file').catch(() => undefined);
  }
}

async function takeLock(lock: string): Promise<boolean> {
  const handle = await openNew(lock).catch(unlessCode('EEXIST'));
  if (!handle) return false;
  await handle.writeFile(`${JSON.stringify({ pid: process.pid, at: new Date().toISOString() })}\n`).finally(() => handle.close());
  return true;
}

/** Whether the lock's holder is dead or has held it far longer than a start takes. */
export async function staleLock(lock: string): Promise<boolean> {
  const info = await stat(lock).catch(() => undefined);
  if (!info) return false;
  const age = Date.now() - info.mtimeMs;
  if (age > STALE_LOCK_MS) return true;
  const readPid = (text: string) => (JSON.parse(text) as { pid?: unknown }).pid;
  const pid = await readFile(lock, 'utf8')
    .then(readPid)
    .catch(() => undefined);
  // A starter writes its pid as it makes the lock: one still without it after a second was left half-made by a starter that died.
  if (typeof pid !== 'number') return age > HALF_MADE_LOCK_MS;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Spawns the host in its own session, so that a signal to this client's process group (Ctrl-C)
 * never reaches it, and waits for its first line on stdout.
 */
function spawnHost(paths: HostPaths, deadline: Deadline): Promise<Started> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...RUNTIME_FLAGS.host, ...binCommand(), 'host', paths.id], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      cwd: paths.dir,
      env: { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? HOST_MALLOC_ARENAS },
    });
    let said = '';
    const done = (outcome: Started) => {
      clearTimeout(timer);
      child.stdout?.destroy();
      child.unref();
      resolve(outcome);
    };
    const timer = setTimeout(() => done({ failed: `the run host said nothing within ${START_MS / 1000} s` }), deadline.msLeft());
    child.once('error', (error) => done({ failed: `the run host could not be started: ${error.message}` }));
    child.once('close', (code, signal) =>
      done({ failed: `the run host ended at its start (${signal ?? `exit code ${code}`})${said ? `: ${said.trim()}` : ''}` }),
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const line = said.split('\n', 1)[0]!;
      if (!said.includes('\n')) return;
      done(line === 'ready' || line === 'exists' ? 'started' : { failed: line.replace(/^failed: /, '') });
    });
  });
}

/** This package's bin: the bundle's bin.js beside this code, or from the sources bin.ts through tsx. */
function binCommand(): string[] {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return ['--import', 'tsx', path.resolve(path.dirname(here), '..', 'bin.ts')];
  return [path.join(path.dirname(here), 'bin.js')];
}
