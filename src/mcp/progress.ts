import { monotonicNow } from '../clock.js';
import { briefError, count, seconds } from '../present/words.js';
import type { CandidateRecord, RunState } from '../run/record.js';

export interface ProgressUpdate {
  progress: number;
  total: number;
  message: string;
}

/**
 * Progress notifications from the run's record as it changes, strictly increasing: one step per
 * model that finished and one when synthesis starts; between steps, each update creeps towards
 * the next step without reaching it, so a client that resets its timer on progress keeps waiting.
 * The record may come from this process or from another's journal: only what it says counts.
 */
export class ProgressTracker {
  private last = -1;
  private lastStep = -1;
  private lastStepAt: number;
  private closed = false;
  private readonly settled = new Set<number>();

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    private readonly now: () => number = monotonicNow,
  ) {
    this.lastStepAt = now();
  }

  /** Called at each change of the run and on a timer while waiting. */
  update(record: RunState): void {
    const total = record.candidates.length + 2;
    const news = record.candidates.filter((candidate) => candidate.status !== 'waiting' && !this.settled.has(candidate.index));
    for (const candidate of news) this.settled.add(candidate.index);
    const step = record.synthesis.status === 'waiting' ? this.settled.size : record.candidates.length + 1;
    if (step > this.lastStep) {
      this.lastStep = step;
      this.lastStepAt = this.now();
      this.emit(step, total, stepMessage(record, news));
    } else {
      const waited = this.now() - this.lastStepAt;
      const creep = step + waited / (waited + 10_000);
      const nudge = this.last + (Math.floor(this.last) + 1 - this.last) / 2;
      // A model whose outcome is recorded after the synthesis began (its file was still being saved) is told of now.
      const outcomes = news.length ? `: ${news.map(outcome).join(', ')}` : '';
      this.emit(creep > this.last ? creep : nudge, total, `${phase(record)} (${seconds(waited)} since the last step)${outcomes}`);
    }
  }

  /** After the result: nothing more may be sent. */
  close(): void {
    this.closed = true;
  }

  private emit(progress: number, total: number, message: string): void {
    if (this.closed || progress <= this.last) return;
    this.last = progress;
    this.send({ progress, total, message });
  }
}

function stepMessage(record: RunState, news: CandidateRecord[]): string {
  const outcomes = news.map(outcome).join(', ');
  return outcomes ? `${phase(record)}: ${outcomes}` : phase(record);
}

function phase(record: RunState): string {
  const { candidates, synthesis } = record;
  const finished = candidates.filter((candidate) => candidate.status !== 'waiting').length;
  if (synthesis.status === 'running')
    return `synthesizing ${count(candidates.filter((c) => c.status === 'answered').length, 'answer')} with ${synthesis.model}`;
  if (synthesis.status !== 'waiting') return 'finishing';
  const waiting = candidates.filter((candidate) => candidate.status === 'waiting').map((candidate) => candidate.model);
  return `${finished} of ${count(candidates.length, 'model')} finished${waiting.length ? `; waiting for ${waiting.join(', ')}` : ''}`;
}

function outcome(candidate: CandidateRecord): string {
  if (candidate.status === 'answered')
    return `${candidate.model} answered${candidate.ms === undefined ? '' : ` in ${seconds(candidate.ms)}`}`;
  if (candidate.status === 'failed') return `${candidate.model} failed (${briefError(candidate.error)})`;
  return candidate.model;
}
