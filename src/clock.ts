/**
 * Budgets and deadlines run on a monotonic clock: a step of the wall clock (NTP, resume from
 * sleep) must not cut a call short or stretch it. Wall-clock time is only for timestamps. In
 * ms, from process.hrtime: `performance.now()` would load Node's perf_hooks into every server.
 */
export const monotonicNow = (): number => Number(process.hrtime.bigint()) / 1e6;

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

/**
 * Runs `work` for at most `ms`: past it, `work`'s signal is aborted with `timeout()`'s error and
 * the promise rejects with it, so that the work stops at its next step. A pending limit alone
 * does not keep the process alive.
 */
export async function withinMs<T>(ms: number, work: (signal: AbortSignal) => Promise<T>, timeout: () => Error): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = timeout();
      controller.abort(error);
      reject(error);
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
