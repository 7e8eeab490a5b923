/** The shortest budget a learned limit leaves: enough to read a run and reply. */
const MIN_BUDGET_MS = 1000;
/** A learned limit is met with this share of it: the reply must reach the client before its timer does. */
const LEARNED_SHARE = 0.8;

/** A limit learned earlier in the session (perhaps by another process), and who keeps what is learned now. */
export interface SessionMemory {
  limitMs?: number;
  /** Told each time the limit is lowered: over HTTP, the session's next request may reach another process. */
  learned?: (limitMs: number) => void;
}

/**
 * What this server learns about its client while it serves it. A user may have set the
 * client's time limit below what the client's name suggests; the first call the client gives
 * up on shows the real limit, and every later call returns well before it.
 */
export class Session {
  private limitMs: number | undefined;
  private noticeSaid = false;
  private readonly learned: ((limitMs: number) => void) | undefined;

  constructor({ limitMs, learned }: SessionMemory = {}) {
    this.limitMs = limitMs;
    this.learned = learned;
  }

  /** The client gave up on a call (its own timeout) after `ms`. */
  timedOutAfter(ms: number): void {
    if (this.limitMs !== undefined && this.limitMs <= ms) return;
    this.limitMs = ms;
    this.learned?.(ms);
  }

  /** `budgetMs`, lowered below the client's limit once it is known. */
  budget(budgetMs: number): number {
    if (this.limitMs === undefined) return budgetMs;
    return Math.min(budgetMs, Math.max(MIN_BUDGET_MS, Math.floor(this.limitMs * LEARNED_SHARE)));
  }

  /** `notice` the first time, then never again in this session. */
  once(notice: string | undefined): string | undefined {
    if (!notice || this.noticeSaid) return undefined;
    this.noticeSaid = true;
    return notice;
  }
}
