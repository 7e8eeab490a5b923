import type { Logger } from 'pino';

/** After a signal the process must be gone this soon, whatever is still running. */
const FORCE_EXIT_MS = 1500;

export interface Stops {
  /** The client went away (stdin ended or closed, stdout broke): its runs may finish first. */
  clientGone(): Promise<void>;
  /** SIGINT, SIGTERM or SIGHUP: stop at once, leaving the runs to be resumed. */
  signalled(): Promise<void>;
}

/**
 * Ends the process when the client goes away or a signal arrives. The SDK's stdio transport
 * notices neither stdin ending nor stdout breaking by itself.
 */
export function exitOnDisconnect(stops: Stops, logger: Logger): void {
  let state: 'serving' | 'draining' | 'stopping' = 'serving';
  const exit = () => process.exit(0);
  const gone = (reason: string) => {
    if (state !== 'serving') return;
    state = 'draining';
    logger.info({ reason }, 'the client is gone: finishing the runs in progress, then exiting');
    stops
      .clientGone()
      .catch((error: unknown) => logger.error({ err: error }, 'error while finishing'))
      .finally(exit);
  };
  const signalled = (signal: NodeJS.Signals) => {
    if (state === 'stopping') return;
    state = 'stopping';
    logger.info({ reason: signal }, 'shutting down');
    setTimeout(exit, FORCE_EXIT_MS).unref();
    stops
      .signalled()
      .catch((error: unknown) => logger.error({ err: error }, 'error during shutdown'))
      .finally(exit);
  };
  process.stdin.once('end', () => gone('stdin ended'));
  process.stdin.once('close', () => gone('stdin closed'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => signalled(signal));
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    gone(error.code === 'EPIPE' ? 'stdout closed (EPIPE)' : `stdout error ${error.code ?? error.message}`);
  });
}
