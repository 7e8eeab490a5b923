import { isDown } from '../database.js';
import { forever } from './dbos.js';

/**
 * Admits a run's steps while this engine works on runs. Once closed (a stop, a drain's end, a
 * lost lock), no step starts, the steps in flight are told to stop, and none of them settles:
 * their results are never saved by this process and the run is left, unfinished, to the
 * process that takes it over, which runs those steps again.
 */
export class StepGate {
  #closed = false;
  readonly #inFlight = new Set<AbortController>();

  /** `confirm` resolves while this process still holds its lock, and is asked before each step. */
  constructor(private readonly confirm: () => Promise<void>) {}

  get closed(): boolean {
    return this.#closed;
  }

  async pass<T>(work: (signal: AbortSignal) => Promise<T>, cancelled: AbortSignal | undefined): Promise<T> {
    if (this.#closed) return forever();
    try {
      await this.confirm();
    } catch {
      // The lock is lost: the engine is being fenced (Liveness reports it), and this step is not ours to run.
      return forever();
    }
    if (this.#closed) return forever();
    const stop = new AbortController();
    this.#inFlight.add(stop);
    try {
      const value = await work(cancelled ? AbortSignal.any([stop.signal, cancelled]) : stop.signal);
      return this.#closed ? forever() : value;
    } catch (error) {
      // A step cut off from the database may be this process cut off: if so (the check fails
      // and fences the engine, closing this gate), the error is not the run's, and is not saved.
      if (!this.#closed && isDown(error)) await this.confirm().catch(() => undefined);
      if (this.#closed) return forever();
      throw error;
    } finally {
      this.#inFlight.delete(stop);
    }
  }

  close(reason: Error): void {
    this.#closed = true;
    for (const stop of this.#inFlight) stop.abort(reason);
  }
}
