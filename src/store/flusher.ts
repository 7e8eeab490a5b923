/** How long after a file is published its flush to the disk may wait, to cover the versions that replace it meanwhile. */
export const FLUSH_DELAY_MS = 1000;

/**
 * Flushes published files to the disk (fsync), against power cuts. A kill -9 needs nothing of
 * it (the rename is enough), so nobody waits for it, and a file rewritten step after step (a
 * run's journal, up to a dozen times a call) is flushed once for all the versions published
 * within `delayMs`: the flush opens the file by its name, so it takes whichever is newest. A
 * flush that fails costs nothing but itself; one still waiting when the process exits is left
 * to the kernel's own write-back.
 */
export class Flusher {
  private readonly due = new Set<string>();

  constructor(
    private readonly flush: (file: string) => Promise<void>,
    private readonly delayMs = FLUSH_DELAY_MS,
  ) {}

  /** `file` has just been published: it is flushed within `delayMs`, with whatever replaces it before then. */
  published(file: string): void {
    if (this.due.has(file)) return;
    this.due.add(file);
    setTimeout(() => {
      this.due.delete(file);
      this.flush(file).catch(() => undefined);
    }, this.delayMs).unref();
  }
}
