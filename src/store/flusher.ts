/** How long a flush may wait after a file is published, to cover the versions that replace it meanwhile. */
export const FLUSH_DELAY_MS = 1000;

/**
 * Flushes published files to the disk (fsync) against power cuts; a kill -9 needs only the rename, so
 * nobody waits for it. The flush opens the file by name, so one flush covers every version published within `delayMs`.
 */
export class Flusher {
  private readonly due = new Set<string>();

  constructor(
    private readonly flush: (file: string) => Promise<void>,
    private readonly delayMs = FLUSH_DELAY_MS,
  ) {}

  published(file: string): void {
    if (this.due.has(file)) return;
    this.due.add(file);
    setTimeout(() => {
      this.due.delete(file);
      this.flush(file).catch(() => undefined);
    }, this.delayMs).unref();
  }
}
