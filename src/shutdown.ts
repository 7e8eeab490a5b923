import type { Logger } from 'pino';

/** After a signal the process must be gone this soon, whatever is still running. */
const FORCE_EXIT_MS = 1500;

export interface Stops {
  /** The client went away (stdin ended or closed, stdout broke): its runs may finish first. */
  clientGone(): Promise<void>;
  /** A signal, or the transport failing: stop at once, leaving the runs to be resumed. */
  halted(): Promise<void>;
}

/** Ends the process the recorded way, saying why: `halt` at once (with `exitCode`), or, the client gone, after `clientGone`. */
export interface Stop {
  halt(reason: string, exitCode?: number): void;
  gone(reason: string): void;
}

/**
 * Ends the process when the client goes away or a signal (SIGINT, SIGTERM, SIGHUP: the
 * terminal or the client's session closed) arrives. The stdio transport notices neither
 * stdin ending nor, always first, stdout breaking. Returns how to stop for the other reasons
 * the process has to end while it serves.
 */
export function exitOnDisconnect(stops: Stops, logger: Logger): Stop {
  let state: 'serving' | 'draining' | 'stopping' = 'serving';
  const end = (work: Promise<void>, exitCode: number) =>
    work
      .catch((error: unknown) => logger.error({ err: error }, 'error while stopping'))
      .then(() => new Promise<void>((resolve) => logger.flush(() => resolve())))
      .finally(() => process.exit(exitCode));
  const gone = (reason: string) => {
    if (state !== 'serving') return;
    state = 'draining';
    logger.info({ reason }, 'the client is gone: finishing the runs in progress, then exiting');
    void end(stops.clientGone(), 0);
  };
  const halt = (reason: string, exitCode = 0) => {
    if (state === 'stopping') return;
    state = 'stopping';
    if (exitCode === 0) logger.info({ reason }, 'shutting down');
    else logger.error({ reason, exitCode }, `shutting down: ${reason}`);
    setTimeout(() => process.exit(exitCode), FORCE_EXIT_MS).unref();
    void end(stops.halted(), exitCode);
  };
  process.stdin.once('end', () => gone('stdin ended'));
  process.stdin.once('close', () => gone('stdin closed'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => halt(signal));
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    gone(error.code === 'EPIPE' ? 'stdout closed (EPIPE)' : `stdout error ${error.code ?? error.message}`);
  });
  return {
    halt: (reason, exitCode) => {
      if (state === 'serving') halt(reason, exitCode);
    },
    gone,
  };
}
