import type { Deadline } from '../clock.js';
import type { RunState } from './record.js';
import { STATUS } from './status.js';
import type { CancelOutcome, LookupError, RunService, RunView, Watched, WatchOptions } from './service.js';

/** A run that could not be read while being followed: its folder went, or its journal was damaged. */
export class RunLost extends Error {
  override readonly name = 'RunLost';

  constructor(readonly lookup: LookupError) {
    super(lookup.message);
  }
}

export interface WaitOptions {
  deadline: Deadline;
  signal?: AbortSignal;
  /** Longest time between two `onUpdate` calls while nothing changes. */
  heartbeatMs?: number;
  onUpdate?: (state: RunState) => void;
}

/** A run as one reader follows it; every client waits through it, wherever the run executes. */
export class RunHandle {
  private seen: number | undefined;

  constructor(
    readonly id: string,
    private readonly service: RunService,
  ) {}

  view(maxChars: number): Promise<RunView> {
    return this.service.view(this.id, maxChars).then((found) => {
      if (!found.ok) throw new RunLost(found.error);
      return found.value;
    });
  }

  cancel(reason: string): Promise<CancelOutcome> {
    return this.service.cancel(this.id, reason);
  }

  async wait(options: WaitOptions): Promise<RunState> {
    return (await this.follow(options)).state;
  }

  /** The view comes with the watch that saw the run end, when one did. */
  async waitForView(options: WaitOptions, maxChars: number): Promise<RunView> {
    return (await this.follow(options, maxChars)).view ?? this.view(maxChars);
  }

  private async follow({ deadline, signal, heartbeatMs = Infinity, onUpdate }: WaitOptions, viewChars?: number): Promise<Watched> {
    // Nobody to tell of each change: one watch to the run's end is enough.
    if (!onUpdate && signal?.aborted) return this.watch(0, undefined, { viewChars });
    if (!onUpdate) return this.watch(deadline.msLeft(), signal, { untilSettled: true, viewChars });
    let watched = await this.watch(0, undefined, { viewChars });
    while (!STATUS[watched.state.status].settled && !signal?.aborted && deadline.msLeft() > 0) {
      onUpdate(watched.state);
      watched = await this.watch(Math.min(deadline.msLeft(), heartbeatMs), signal, { viewChars });
    }
    return watched;
  }

  private async watch(
    waitMs: number,
    signal: AbortSignal | undefined,
    more: Pick<WatchOptions, 'untilSettled' | 'viewChars'> = {},
  ): Promise<Watched> {
    const found = await this.service.watch(this.id, { since: waitMs > 0 ? this.seen : undefined, waitMs, signal, ...more });
    if (!found.ok) throw new RunLost(found.error);
    this.seen = found.value.version;
    return found.value;
  }
}
