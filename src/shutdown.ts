import type { Logger } from 'pino';

/** The process must be gone this soon after a shutdown starts, whatever is still running. */
const FORCE_EXIT_MS = 1500;

/**
 * Ends the process cleanly when the client goes away: stdin ends or closes, SIGINT or
 * SIGTERM arrives, or stdout breaks (EPIPE). The SDK's stdio transport notices none of
 * the stdin or stdout cases by itself.
 */
export function exitOnDisconnect(cleanup: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    setTimeout(() => process.exit(0), FORCE_EXIT_MS).unref();
    cleanup()
      .catch((error: unknown) => logger.error({ err: error }, 'error during shutdown'))
      .finally(() => process.exit(0));
  };
  process.stdin.once('end', () => stop('stdin ended'));
  process.stdin.once('close', () => stop('stdin closed'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    stop(error.code === 'EPIPE' ? 'stdout closed (EPIPE)' : `stdout error ${error.code ?? error.message}`);
  });
}
