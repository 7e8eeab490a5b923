/** Wakes everyone waiting for the next change of something, then waits anew. */
export class ChangeSignal {
  private wake!: () => void;
  private next!: Promise<void>;

  constructor() {
    this.arm();
  }

  /** Resolves at the next `notify`. */
  wait(): Promise<void> {
    return this.next;
  }

  notify(): void {
    this.wake();
    this.arm();
  }

  private arm(): void {
    this.next = new Promise((resolve) => (this.wake = resolve));
  }
}
