import { setMaxListeners } from 'node:events';

/** Why a run stopped early: its status, and the reason in words. */
export class RunStopped extends Error {
  constructor(
    readonly status: 'cancelled' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A run's one stop: every upstream request of the run listens to its signal, so that a stop
 * (an explicit cancel, or the process ending) aborts them all at once; the first stop wins.
 */
export class Stopper {
  private readonly controller = new AbortController();

  constructor() {
    // Every upstream request of the run listens to this signal: no listener cap.
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(status: RunStopped['status'], reason: string): void {
    this.controller.abort(new RunStopped(status, reason));
  }

  /** Why it stopped, once it has. */
  stopped(): RunStopped | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as RunStopped) : undefined;
  }
}
