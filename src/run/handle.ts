import type { Deadline } from '../clock.js';
import { STATUS, type RunState } from './record.js';
import type { CancelOutcome, LookupError, RunService, RunView } from './service.js';

/** A run that could not be read while being followed: its folder went, or its journal was damaged. */
export class RunLost extends Error {
  override readonly name = 'RunLost';

  constructor(readonly lookup: LookupError) {
    super(lookup.message);
  }
}

export interface WaitOptions {
  deadline: Deadline;
  /** The wait ends when this aborts (the caller gave up). */
  signal?: AbortSignal;
  /** Longest time between two `onUpdate` calls while nothing changes. */
  heartbeatMs?: number;
  /** The run as it stands: at the start, at each change, and at each heartbeat. */
  onUpdate?: (state: RunState) => void;
}

/**
 * A run as one reader follows it: its id and the version it saw last. Every face (a tool call,
 * a task, a resource, `ask`) waits through it, whether the run executes in the run host or here.
 */
export class RunHandle {
  private seen: number | undefined;

  constructor(
    readonly id: string,
    private readonly service: RunService,
  ) {}

  /** The run as it stands now. */
  async current(): Promise<RunState> {
    return this.watch(0, undefined);
  }

  /** The run once it has changed since this reader's last look (with `untilSettled`, once it has ended), or after `ms`. */
  async next(ms: number, signal?: AbortSignal, untilSettled = false): Promise<RunState> {
    return this.watch(ms, signal, untilSettled);
  }

  view(maxChars: number): Promise<RunView> {
    return this.service.view(this.id, maxChars).then((found) => {
      if (!found.ok) throw new RunLost(found.error);
      return found.value;
    });
  }

  cancel(reason: string): Promise<CancelOutcome> {
    return this.service.cancel(this.id, reason);
  }

  /**
   * The one wait: until the run settles, the deadline passes or the signal aborts, telling
   * `onUpdate` at the start, at each change and at each heartbeat. Resolves to the run as it stands.
   */
  async wait({ deadline, signal, heartbeatMs = Infinity, onUpdate }: WaitOptions): Promise<RunState> {
    let state = await this.current();
    while (!STATUS[state.status].settled && !signal?.aborted && deadline.msLeft() > 0) {
      onUpdate?.(state);
      // Nobody to tell of each change: one wake, at the end, is all this reader needs.
      state = await this.next(Math.min(deadline.msLeft(), heartbeatMs), signal, onUpdate === undefined);
    }
    return state;
  }

  private async watch(waitMs: number, signal: AbortSignal | undefined, untilSettled = false): Promise<RunState> {
    const found = await this.service.watch(this.id, { since: waitMs > 0 ? this.seen : undefined, waitMs, signal, untilSettled });
    if (!found.ok) throw new RunLost(found.error);
    this.seen = found.value.version;
    return found.value.state;
  }
}
