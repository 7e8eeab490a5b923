import type { RunRecord } from './record.js';
import type { Run } from './run.js';
import type { RunView } from './view.js';

/**
 * A run as the faces see it, whether this process runs it or it lives only on disk (another
 * process's run, or one from before a restart): its state, a way to wait for the next step,
 * and its texts for a result.
 */
export interface RunHandle {
  readonly id: string;
  /** The record as it stands (a run on disk re-reads its journal). */
  current(): Promise<Readonly<RunRecord>>;
  /** Resolves at the run's next step since this handle's last `current()` (at once if it has come), or after `ms`. */
  nextChange(ms: number): Promise<void>;
  /** The record and the texts a result shows, each at most `maxChars` long. */
  view(maxChars: number): Promise<RunView>;
  /** A user's stop. False when this process cannot stop the run (another process runs it). */
  cancel(reason: string): boolean;
}

/** A run of this process, as one reader sees it. */
export class LiveHandle implements RunHandle {
  /** The run's step count at this reader's last `current()`: a step since then is not waited for. */
  private seen: number | undefined;

  constructor(readonly run: Run) {}

  get id(): string {
    return this.run.id;
  }

  /** Settles when the run has ended and its journal is written. */
  get settled(): Promise<void> {
    return this.run.settled;
  }

  /** True once the run has settled whole on disk, where it is found from then on. */
  get onDisk(): boolean {
    return this.run.onDisk;
  }

  async current(): Promise<Readonly<RunRecord>> {
    this.seen = this.run.version;
    return this.run.view().record;
  }

  nextChange(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    return Promise.race([this.run.nextChange(this.seen), elapsed]).finally(() => clearTimeout(timer));
  }

  async view(): Promise<RunView> {
    return this.run.view();
  }

  cancel(reason: string): boolean {
    this.run.cancel(reason);
    return true;
  }
}
