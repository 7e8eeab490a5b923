/** `urgent` tasks go to the front of the queue: synthesis must not wait behind a later call's candidates. */
interface RunOptions {
  signal?: AbortSignal;
  urgent?: boolean;
}

export interface Limiter {
  run<T>(task: () => Promise<T>, options?: RunOptions): Promise<T>;
  readonly activeCount: number;
  readonly pendingCount: number;
}

export function createLimiter(concurrency: number): Limiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TypeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const queue: Array<() => void> = [];
  let active = 0;

  const release = () => {
    active--;
    queue.shift()?.();
  };

  const acquire = (options: RunOptions): Promise<void> => {
    const { signal, urgent } = options;
    signal?.throwIfAborted();
    if (active < concurrency) {
      active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', leave);
        active++;
        resolve();
      };
      const leave = () => {
        const index = queue.indexOf(start);
        if (index !== -1) queue.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      if (urgent) queue.unshift(start);
      else queue.push(start);
    });
  };

  return {
    async run<T>(task: () => Promise<T>, options: RunOptions = {}): Promise<T> {
      await acquire(options);
      try {
        return await task();
      } finally {
        release();
      }
    },
    get activeCount() {
      return active;
    },
    get pendingCount() {
      return queue.length;
    },
  };
}
