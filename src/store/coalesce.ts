interface Pending {
  content: string;
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Orders and coalesces the writes of each file: at most one write in flight and one
 * waiting. A newer content replaces the waiting one, so a file rewritten at every step
 * (a run's journal) costs at most two writes however fast the steps come, and an older
 * version never lands after a newer one. Every caller's promise settles once its content,
 * or a newer one, is written (or that write failed).
 */
export class CoalescingWriter {
  /** Files with a write in flight, and the write waiting behind it, if any. */
  private readonly busy = new Map<string, { waiting?: Pending }>();

  constructor(private readonly perform: (key: string, content: string) => Promise<void>) {}

  write(key: string, content: string): Promise<void> {
    const lane = this.busy.get(key);
    if (!lane) {
      this.busy.set(key, {});
      return this.run(key, content);
    }
    lane.waiting ??= pending();
    lane.waiting.content = content;
    return lane.waiting.promise;
  }

  private async run(key: string, content: string): Promise<void> {
    try {
      await this.perform(key, content);
    } finally {
      this.startWaiting(key);
    }
  }

  private startWaiting(key: string): void {
    const lane = this.busy.get(key)!;
    const next = lane.waiting;
    if (!next) {
      this.busy.delete(key);
      return;
    }
    lane.waiting = undefined;
    this.run(key, next.content).then(next.resolve, next.reject);
  }
}

function pending(): Pending {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { content: '', promise, resolve, reject };
}
