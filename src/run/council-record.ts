import { candidateFile, type RunJournal } from './journal.js';
import type { AnsweredRanker, CouncilRecord, RankerRecord, RunRecord } from './record.js';

/**
 * The council's part of a run's record: each member's ranking, its whole reply saved before the
 * record names it, and the combined ranking. A step is journaled and its waiters woken by `step`.
 */
export class CouncilRecorder {
  constructor(
    private readonly record: RunRecord,
    private readonly journal: RunJournal,
    private readonly step: () => void,
  ) {}

  /** The rankings saved so far: a resumed run asks none of these again. */
  saved(): AnsweredRanker[] {
    return this.record.council?.rankings.flatMap((ranker) => (ranker.status === 'answered' ? [ranker] : [])) ?? [];
  }

  /** A member ranked the others (its whole reply saved first) or failed to. */
  async ranked(ranker: RankerRecord, reply?: string): Promise<void> {
    const file = reply === undefined ? undefined : await this.journal.save(candidateFile(ranker, '.ranking.md'), reply);
    this.council().rankings.push(file && ranker.status === 'answered' ? { ...ranker, file } : ranker);
    this.step();
  }

  /** The combined ranking, or why the synthesizer merges without one. */
  done(outcome: Pick<CouncilRecord, 'aggregate' | 'note'>): void {
    Object.assign(this.council(), outcome);
  }

  private council(): CouncilRecord {
    this.record.council ??= { rankings: [] };
    return this.record.council;
  }
}
