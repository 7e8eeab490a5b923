import { nameFiles, type SettledCandidate } from './new-record.js';
import type { CandidateRecord } from './record.js';

/**
 * Candidates that have answered or failed while their files are still being saved: the last
 * step reads them at once (`now`), and the record holds them only once their files are on disk,
 * so that the journal never counts an answer whose file is not there.
 */
export class SettlingCandidates {
  /** By 0-based index. */
  private readonly pending = new Map<number, SettledCandidate>();

  constructor(
    /** The record's candidates. */
    private readonly recorded: CandidateRecord[],
    /** Told once a candidate is in the record. */
    private readonly onRecorded: () => void,
  ) {}

  /** Whether any candidate's files are still being saved. */
  get saving(): boolean {
    return this.pending.size > 0;
  }

  /** `candidate` settled: it goes into the record, naming its files, once `files` are on disk. */
  async settle(index: number, candidate: SettledCandidate, files: Promise<{ file?: string; reasoningFile?: string }>): Promise<void> {
    this.pending.set(index, candidate);
    nameFiles(candidate, await files);
    this.pending.delete(index);
    this.recorded[index] = candidate;
    this.onRecorded();
  }

  /** The candidates as they have settled, those whose files are still being saved included. */
  now(): CandidateRecord[] {
    return this.recorded.map((candidate, i) => this.pending.get(i) ?? candidate);
  }
}
