/**
 * Budgets and deadlines run on a monotonic clock: a step of the wall clock (NTP, resume from
 * sleep) must not cut a call short or stretch it. Wall-clock time is only for timestamps.
 */
export const monotonicNow = (): number => performance.now();

/** A moment on the monotonic clock, `ms` after it was made. */
export class Deadline {
  private constructor(
    readonly at: number,
    readonly ms: number,
  ) {}

  static after(ms: number): Deadline {
    return new Deadline(monotonicNow() + ms, ms);
  }

  msLeft(): number {
    return Math.max(0, this.at - monotonicNow());
  }
}
