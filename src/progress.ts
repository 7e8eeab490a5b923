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
  private steps = 0;
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
    if (event.type === 'candidate') {
      const { candidate } = event;
      const outcome = candidate.status === 'answered' ? `answered in ${seconds(candidate.ms)}` : `failed (${candidate.error?.kind})`;
      this.finished.push(`${candidate.model} ${outcome}`);
      this.phase = `${event.settled}/${event.total} models finished`;
      this.step(`${this.phase}: ${candidate.model} ${outcome}`);
    } else {
      this.phase = `synthesizing ${event.candidates} answers with ${event.model}`;
      this.steps = Math.max(this.steps, this.models.length);
      this.step(this.phase);
    }
  }

  /** Called on a timer: says the call is alive and what it is waiting for. */
  heartbeat(): void {
    const waited = this.now() - this.lastStepAt;
    const detail = this.finished.length > 0 ? `; so far: ${this.finished.join(', ')}` : '';
    this.emit(this.steps + waited / (waited + 10_000), `${this.phase} (${seconds(waited)} since the last step)${detail}`);
  }

  /** After the result: nothing more may be sent. */
  close(): void {
    this.closed = true;
  }

  private step(message: string): void {
    this.steps++;
    this.lastStepAt = this.now();
    this.emit(this.steps, message);
  }

  private emit(value: number, message: string): void {
    if (this.closed) return;
    const progress = Math.min(value, this.total);
    if (progress <= this.last) return;
    this.last = progress;
    this.send({ progress, total: this.total, message });
  }
}

export const seconds = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(1)} s`);
