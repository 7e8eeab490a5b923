import { candidateFile, type RunJournal } from './journal.js';
import type { AnsweredRanker, CouncilRecord, RankerRecord, RunRecord } from './record.js';

/** The council's part of a run's record: each ranker's whole reply is saved before the record names it. */
export class CouncilRecorder {
  constructor(
    private readonly record: RunRecord,
    private readonly journal: RunJournal,
    private readonly step: () => void,
  ) {}

  /** A resumed run asks none of these again. */
  saved(): AnsweredRanker[] {
    return this.record.council?.rankings.flatMap((ranker) => (ranker.status === 'answered' ? [ranker] : [])) ?? [];
  }

  async ranked(ranker: RankerRecord, reply?: string): Promise<void> {
    const file = reply === undefined ? undefined : await this.journal.save(candidateFile(ranker, '.ranking.md'), reply);
    this.council().rankings.push(file && ranker.status === 'answered' ? { ...ranker, file } : ranker);
    this.step();
  }

  done(outcome: Pick<CouncilRecord, 'aggregate' | 'note'>): void {
    Object.assign(this.council(), outcome);
  }

  private council(): CouncilRecord {
    this.record.council ??= { rankings: [] };
    return this.record.council;
  }
}
