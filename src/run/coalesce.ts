/** After `firstMs`, then twice as long each time, up to `maxMs`. */
export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export const CATCH_UP_BACKOFF: Backoff = { firstMs: 500, maxMs: 30_000 };

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Job {
  content: string;
  catchUp: boolean;
  /** The callers of this content and of those it replaced. */
  callers: Deferred;
}

/** Exists for as long as the latest content of its name is not known to be kept. */
interface Lane {
  next: Job | undefined;
  writing: boolean;
  retry: NodeJS.Timeout | undefined;
  delayMs: number;
  clean: Deferred;
}

/**
 * Per name, one write in flight and one waiting, which a newer content replaces: a journal rewritten at every
 * step costs at most two writes however fast the steps come, and an older version never lands after a newer one.
 * A failed `catchUp` write is tried again with backoff, so the journal catches up as soon as the store (a disk,
 * a database) takes writes again. It sits above the store seam, so every store gets it without its own.
 */
export class CoalescingWriter {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly perform: (key: string, content: string) => Promise<void>,
    private readonly backoff: Backoff = CATCH_UP_BACKOFF,
  ) {}

  /** Settles once this content, or a newer one, is written (or that write failed). */
  write(key: string, content: string, { catchUp = false } = {}): Promise<void> {
    const lane = this.lanes.get(key) ?? this.newLane(key);
    // A newer content replaces the one waiting to be tried again.
    clearTimeout(lane.retry);
    lane.retry = undefined;
    lane.next ??= { content, catchUp, callers: deferred() };
    Object.assign(lane.next, { content, catchUp });
    const { promise } = lane.next.callers;
    if (!lane.writing) this.pump(key, lane);
    return promise;
  }

  flushed(key: string): Promise<void> {
    return this.lanes.get(key)?.clean.promise ?? Promise.resolve();
  }

  private newLane(key: string): Lane {
    const lane: Lane = { next: undefined, writing: false, retry: undefined, delayMs: this.backoff.firstMs, clean: deferred() };
    this.lanes.set(key, lane);
    return lane;
  }

  /** A lane with nothing waiting and nothing to try again is clean. */
  private pump(key: string, lane: Lane): void {
    const job = lane.next;
    if (!job) {
      if (lane.retry) return;
      this.lanes.delete(key);
      lane.clean.resolve();
      return;
    }
    lane.next = undefined;
    lane.writing = true;
    this.perform(key, job.content).then(
      () => {
        lane.writing = false;
        lane.delayMs = this.backoff.firstMs;
        job.callers.resolve();
        this.pump(key, lane);
      },
      (error: unknown) => {
        lane.writing = false;
        job.callers.reject(error);
        if (job.catchUp && !lane.next) this.tryAgainLater(key, lane, job);
        this.pump(key, lane);
      },
    );
  }

  private tryAgainLater(key: string, lane: Lane, { content }: Job): void {
    const delay = lane.delayMs;
    lane.delayMs = Math.min(delay * 2, this.backoff.maxMs);
    lane.retry = setTimeout(() => {
      lane.retry = undefined;
      // Nobody waits on this try: its failure is only a reason to try again.
      const callers = deferred();
      callers.promise.catch(() => undefined);
      lane.next = { content, catchUp: true, callers };
      this.pump(key, lane);
    }, delay);
    lane.retry.unref();
  }
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
