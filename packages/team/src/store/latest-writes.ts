/** After `firstMs`, then twice as long each time, up to `maxMs`. */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export const CATCH_UP_BACKOFF: Backoff = { firstMs: 500, maxMs: 30_000 };

interface Waiters {
  promise: Promise<void>;
  settle: (error?: unknown) => void;
}

/** One name's writes: the one in flight, and the newest waiting behind it. */
interface Lane {
  waiting: { text: string; catchUp: boolean; waiters: Waiters } | undefined;
  busy: boolean;
  retry: NodeJS.Timeout | undefined;
  delayMs: number;
  clean: Waiters;
}

/**
 * Per name, one write in flight and one waiting, which a newer text replaces: a journal rewritten
 * at every step costs at most two writes however fast the steps come, and an older text never
 * lands after a newer one. A failed `catchUp` write is tried again with backoff until it lands or
 * a newer text replaces it, so the journal catches up once the database answers again.
 */
export class LatestWrites {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly put: (name: string, text: string) => Promise<void>,
    private readonly backoff: Backoff = CATCH_UP_BACKOFF,
  ) {}

  /** Settles once this text, or a newer one, is written, or rejects when that write failed. */
  write(name: string, text: string, catchUp = false): Promise<void> {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { waiting: undefined, busy: false, retry: undefined, delayMs: this.backoff.firstMs, clean: waiters() };
      this.lanes.set(name, lane);
    }
    clearTimeout(lane.retry);
    lane.retry = undefined;
    lane.waiting = { text, catchUp, waiters: lane.waiting?.waiters ?? waiters() };
    const { promise } = lane.waiting.waiters;
    if (!lane.busy) this.next(name, lane);
    return promise;
  }

  /** Settles once the newest text of `name` is written, or has failed without catchUp. */
  flushed(name: string): Promise<void> {
    return this.lanes.get(name)?.clean.promise ?? Promise.resolve();
  }

  private next(name: string, lane: Lane): void {
    const job = lane.waiting;
    if (!job) {
      if (lane.retry) return;
      this.lanes.delete(name);
      lane.clean.settle();
      return;
    }
    lane.waiting = undefined;
    lane.busy = true;
    this.put(name, job.text).then(
      () => {
        lane.busy = false;
        lane.delayMs = this.backoff.firstMs;
        job.waiters.settle();
        this.next(name, lane);
      },
      (error: unknown) => {
        lane.busy = false;
        job.waiters.settle(error ?? new Error('the write failed'));
        if (job.catchUp && !lane.waiting) this.later(name, lane, job.text);
        this.next(name, lane);
      },
    );
  }

  private later(name: string, lane: Lane, text: string): void {
    const delay = lane.delayMs;
    lane.delayMs = Math.min(delay * 2, this.backoff.maxMs);
    lane.retry = setTimeout(() => {
      lane.retry = undefined;
      // Nobody waits on this try: its failure is only a reason to try again.
      const retried = waiters();
      retried.promise.catch(() => undefined);
      lane.waiting = { text, catchUp: true, waiters: retried };
      this.next(name, lane);
    }, delay);
    lane.retry.unref();
  }
}

function waiters(): Waiters {
  let settle!: (error?: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  return { promise, settle };
}
