import { lstat, rename } from 'node:fs/promises';
import net from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { createLogger } from '../log/logger.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { localRuns } from '../run/local.js';
import { packageVersion } from '../version.js';
import { IdleStop } from './idle.js';
import { ensureHostDir, hostPaths, removeOwnHostFile } from './paths.js';
import { answers, listen } from './socket.js';
import { serveClient } from './serve.js';

/** A stop that hangs (a flush, a hung disk) still ends the host this soon. */
const FORCE_EXIT_MS = 3000;

/** `parallel-llm-mcp host <id>`: a bad setting is said on stdout, which the starter reads. */
export async function hostCommand(args: string[], readConfig: () => Config): Promise<number | undefined> {
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  let config: Config;
  try {
    config = readConfig();
  } catch (error) {
    report(`failed: ${(error as Error).message}`);
    return 1;
  }
  await runHost(args, config);
  return undefined;
}

/**
 * The per-user run host: executes every client's runs with one dispatcher and one concurrency
 * limit, and exits once it has had no run and no client for a while. It tells its starter
 * `ready`, `exists` (another host has the socket) or `failed: why`; nobody reads stdout after.
 */
async function runHost(args: string[], config: Config): Promise<void> {
  const version = packageVersion();
  const paths = hostPaths(config, version);
  if (args[0] !== paths.id) return report(`failed: this host's settings (${paths.id}) are not its starter's (${args[0] ?? 'none given'})`);
  await ensureHostDir(paths.dir);
  // A log file the user set is the user's to rotate.
  if (!config.logFile) await keepLogSmall(paths.log);
  // Every exit flushes the log (stopper), so its lines may wait for the end of their turn.
  const logger = createLogger({ level: config.logLevel, file: config.logFile ?? paths.log, stderrLevel: 'silent', fileLinesPerTurn: true });
  const upstream = OpenRouterClient.fromConfig(config, logger);
  const { runs, service } = localRuns(config, upstream, logger);
  const startedAt = new Date().toISOString();
  let clients = 0;
  // Made once the host listens; it counts the clients that came before.
  let idle: IdleStop | undefined;
  const info = () => ({
    pid: process.pid,
    version,
    started_at: startedAt,
    running: runs.running,
    clients,
    socket: paths.socket,
    log: config.logFile ?? paths.log,
  });
  const server = net.createServer((socket) => {
    clients++;
    idle?.check();
    socket.on('close', () => {
      clients--;
      idle?.check();
    });
    socket.on('error', () => undefined);
    serveClient(socket, service, version, info);
  });
  if (!(await listenAlone(server, paths.socket))) return report('exists');
  const socketIno = (await lstat(paths.socket).catch(() => undefined))?.ino;
  const stop = stopper(logger, async (why, interrupt) => {
    logger.info({ why, running: runs.running }, 'run host stopping');
    server.close();
    // A newer host may have taken the socket's name after this one lost it: remove only our own.
    if ((await lstat(paths.socket).catch(() => undefined))?.ino === socketIno)
      await removeOwnHostFile(paths.socket, 'socket').catch(() => undefined);
    await (interrupt ? runs.interruptAll('the run host was stopped') : runs.releaseLease());
    await upstream.close();
  });
  process.once('SIGTERM', () => void stop('SIGTERM', true));
  process.once('SIGINT', () => void stop('SIGINT', true));
  // Detached, the host has no terminal to lose: a hang-up is no reason to stop paid runs.
  process.on('SIGHUP', () => logger.info('SIGHUP ignored: the run host has no terminal'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'the run host failed');
    void stop('an unexpected error', true, 1);
  });
  idle = new IdleStop(
    config.hostIdleMs,
    () => ({ clients, running: runs.running }),
    () => void stop('idle', false),
  );
  runs.onStart(idle.check);
  idle.check();
  logger.info({ pid: process.pid, version, socket: paths.socket, idleMs: config.hostIdleMs }, 'run host ready');
  report('ready');
}

/** A host that starts moves a log past this size to `<log>.1`. */
const MAX_LOG_BYTES = 10 * 1024 * 1024;

async function keepLogSmall(log: string): Promise<void> {
  const info = await lstat(log).catch(() => undefined);
  if (info?.isFile() && info.size > MAX_LOG_BYTES) await rename(log, `${log}.1`).catch(() => undefined);
}

function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Listens on the socket unless a live host already does; a dead host's socket file is replaced. */
async function listenAlone(server: net.Server, socket: string): Promise<boolean> {
  try {
    await listen(server, socket);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || (await answers(socket))) return false;
  }
  await removeOwnHostFile(socket, 'socket');
  await listen(server, socket);
  return true;
}

/** Stops the host once: `teardown` (with `interrupt`, its runs are journaled as interrupted, to be resumed), then the log is flushed. */
function stopper(logger: Logger, teardown: (why: string, interrupt: boolean) => Promise<void>) {
  let stopping = false;
  return async (why: string, interrupt: boolean, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(exitCode), FORCE_EXIT_MS).unref();
    await teardown(why, interrupt);
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(exitCode);
  };
}
