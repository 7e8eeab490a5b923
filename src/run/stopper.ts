import { setMaxListeners } from 'node:events';

export class RunStopped extends Error {
  constructor(
    readonly status: 'cancelled' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}

/** Every upstream request of the run listens to one signal, so a stop aborts them all at once; the first stop wins. */
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

  stopped(): RunStopped | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as RunStopped) : undefined;
  }
}
