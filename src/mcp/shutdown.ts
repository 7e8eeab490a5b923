import type { Logger } from 'pino';

/** After a signal the process must be gone this soon, whatever is still running. */
const FORCE_EXIT_MS = 1500;

export interface Stops {
  /** The client went away (stdin ended or closed, stdout broke): its runs may finish first. */
  clientGone(): Promise<void>;
  /** A signal: stop at once, leaving the runs to be resumed. */
  halted(): Promise<void>;
}

/** Ends the process the recorded way, saying why, once the client is gone: after `clientGone`. */
export type ClientGone = (reason: string) => void;

/**
 * Ends the process when the client goes away or a signal (SIGINT, SIGTERM, SIGHUP: the
 * terminal or the client's session closed) arrives. The stdio transport notices neither
 * stdin ending nor, always first, stdout breaking. Returns the way out for a client gone
 * that only the transport sees.
 */
export function exitOnDisconnect(stops: Stops, logger: Logger): ClientGone {
  let state: 'serving' | 'draining' | 'stopping' = 'serving';
  const end = (work: Promise<void>) =>
    work
      .catch((error: unknown) => logger.error({ err: error }, 'error while stopping'))
      .then(() => new Promise<void>((resolve) => logger.flush(() => resolve())))
      .finally(() => process.exit(0));
  const gone = (reason: string) => {
    if (state !== 'serving') return;
    state = 'draining';
    logger.info({ reason }, 'the client is gone: finishing the runs in progress, then exiting');
    void end(stops.clientGone());
  };
  const halt = (reason: string) => {
    if (state === 'stopping') return;
    state = 'stopping';
    logger.info({ reason }, 'shutting down');
    setTimeout(() => process.exit(0), FORCE_EXIT_MS).unref();
    void end(stops.halted());
  };
  process.stdin.once('end', () => gone('stdin ended'));
  process.stdin.once('close', () => gone('stdin closed'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => halt(signal));
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    gone(error.code === 'EPIPE' ? 'stdout closed (EPIPE)' : `stdout error ${error.code ?? error.message}`);
  });
  return gone;
}
