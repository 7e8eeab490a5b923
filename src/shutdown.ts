import type { Logger } from 'pino';

/** The process must be gone this soon after a shutdown starts, whatever is still running. */
const FORCE_EXIT_MS = 1500;

/** Ends the process the one recorded way: says why, cleans up, lets the logs out, exits with `exitCode`. */
export type Stop = (reason: string, exitCode?: number) => void;

/**
 * Ends the process cleanly when the client goes away: stdin ends or closes, SIGINT, SIGTERM
 * or SIGHUP (the terminal or the client's session closed) arrives, or stdout breaks (EPIPE).
 * The SDK's stdio transport notices none of these by itself. Returns the same `stop`, for
 * the other reasons the process has to end.
 */
export function exitOnDisconnect(cleanup: () => Promise<void>, logger: Logger): Stop {
  let stopping = false;
  const stop: Stop = (reason, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    if (exitCode === 0) logger.info({ reason }, 'shutting down');
    else logger.error({ reason, exitCode }, `shutting down: ${reason}`);
    const exit = () => process.exit(exitCode);
    setTimeout(exit, FORCE_EXIT_MS).unref();
    cleanup()
      .catch((error: unknown) => logger.error({ err: error }, 'error during shutdown'))
      .then(() => new Promise<void>((resolve) => logger.flush(() => resolve())))
      .finally(exit);
  };
  process.stdin.once('end', () => stop('stdin ended'));
  process.stdin.once('close', () => stop('stdin closed'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop(signal));
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    stop(error.code === 'EPIPE' ? 'stdout closed (EPIPE)' : `stdout error ${error.code ?? error.message}`);
  });
  return stop;
}
