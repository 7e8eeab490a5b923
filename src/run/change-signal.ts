/** Wakes everyone waiting for the next change of something, then waits anew. */
export class ChangeSignal {
  /** How many changes there have been: a reader who saw fewer has missed one. */
  version = 0;
  private wake!: () => void;
  private next!: Promise<void>;

  constructor() {
    this.arm();
  }

  wait(since = this.version): Promise<void> {
    return since === this.version ? this.next : Promise.resolve();
  }

  notify(): void {
    this.version++;
    this.wake();
    this.arm();
  }

  private arm(): void {
    this.next = new Promise((resolve) => (this.wake = resolve));
  }
}

export const waitsForChange = (since: number | undefined, version: number, waitMs: number, settled: boolean): boolean =>
  since === version && waitMs > 0 && !settled;

/** Leaves no timer behind. */
export async function changeWithin(change: Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    onAbort = () => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([change, limit]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort!);
  }
}
