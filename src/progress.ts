import type { RunEvent } from './pipeline.js';

export interface ProgressUpdate {
  progress: number;
  total: number;
  message: string;
}

/**
 * Turns pipeline events and the passage of time into progress notifications that
 * strictly increase: one step per finished model and one for synthesis, and between
 * steps a heartbeat that creeps towards the next step without reaching it.
 */
export class ProgressTracker {
  private settled = 0;
  private synthesizing = false;
  private last = 0;
  private lastStepAt: number;
  private closed = false;
  private readonly finished: string[] = [];
  private phase: string;

  constructor(
    private readonly models: string[],
    private readonly send: (update: ProgressUpdate) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.lastStepAt = now();
    this.phase = `asking ${models.length} models`;
  }

  /** One step per model, one for starting synthesis, one for the result (never sent as progress). */
  get total(): number {
    return this.models.length + 2;
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'synthesis') {
      this.synthesizing = true;
      this.phase = `synthesizing ${event.candidates} answers with ${event.model}`;
      this.step(this.phase);
      return;
    }
    const { candidate } = event;
    const outcome = candidate.status === 'answered' ? `answered in ${seconds(candidate.ms)}` : `failed (${candidate.error?.kind})`;
    this.finished.push(`${candidate.model} ${outcome}`);
    this.settled++;
    if (this.synthesizing) {
      // A model the budget cut off arrived during synthesis: news, but not a step.
      this.emitBetweenSteps(`${this.phase}; meanwhile ${candidate.model} ${outcome}`);
    } else {
      this.phase = `${event.settled}/${event.total} models finished`;
      this.step(`${this.phase}: ${candidate.model} ${outcome}`);
    }
  }

  /** Called on a timer: says the call is alive and what it is waiting for. */
  heartbeat(): void {
    const detail = this.finished.length > 0 ? `; so far: ${this.finished.join(', ')}` : '';
    this.emitBetweenSteps(`${this.phase} (${seconds(this.now() - this.lastStepAt)} since the last step)${detail}`);
  }

  /** After the result: nothing more may be sent. */
  close(): void {
    this.closed = true;
  }

  /** Steps done: finished models during the fan-out, then all models plus one during synthesis. */
  private get steps(): number {
    return this.synthesizing ? this.models.length + 1 : this.settled;
  }

  private step(message: string): void {
    this.lastStepAt = this.now();
    this.emit(this.steps, message);
  }

  /** Creeps towards the next step as time passes, never reaching it, always above the last value. */
  private emitBetweenSteps(message: string): void {
    const waited = this.now() - this.lastStepAt;
    const creep = this.steps + waited / (waited + 10_000);
    const nudge = this.last + (Math.floor(this.last) + 1 - this.last) / 2;
    this.emit(creep > this.last ? creep : nudge, message);
  }

  private emit(progress: number, message: string): void {
    if (this.closed || progress <= this.last) return;
    this.last = progress;
    this.send({ progress, total: this.total, message });
  }
}

export const seconds = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(1)} s`);
