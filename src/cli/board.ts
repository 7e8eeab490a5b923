import { count, seconds } from '../present/words.js';
import type { ModelError, RankerRecord } from '../run/record.js';
import type { BoardEvent as RunEvent, SynthesisOutcome as SynthesisReport } from './events.js';

/**
 * Live progress of `ask` on stderr. On a terminal: one line per model, redrawn in place.
 * Elsewhere (a pipe, a log file): one plain line per event.
 */
export interface Board {
  onEvent(event: RunEvent): void;
  /** The last drawing, with how synthesis ended when it is known. */
  stop(synthesis?: SynthesisReport): void;
}

export function createBoard(models: string[], synthesizer: string, out: NodeJS.WriteStream): Board {
  const board = out.isTTY ? new LiveBoard(models, synthesizer, out) : new PlainBoard(out);
  // Once stopped, the lines below the board belong to the answer and the footer.
  let stopped = false;
  return {
    onEvent: (event) => {
      if (!stopped) board.onEvent(event);
    },
    stop: (synthesis) => {
      if (stopped) return;
      stopped = true;
      board.stop(synthesis);
    },
  };
}

class PlainBoard implements Board {
  private readonly started = Date.now();
  constructor(private readonly out: NodeJS.WritableStream) {}

  onEvent(event: RunEvent): void {
    this.out.write(`[${seconds(Date.now() - this.started).padStart(7)}] ${describe(event)}\n`);
  }

  stop(synthesis?: SynthesisReport): void {
    if (synthesis) this.out.write(`[${seconds(Date.now() - this.started).padStart(7)}] ${synthesisOutcome(synthesis)}\n`);
  }
}

class LiveBoard implements Board {
  private readonly started = Date.now();
  private readonly lines: string[];
  private readonly timer: NodeJS.Timeout;
  private drawn = 0;
  private synthesisStarted: number | undefined;
  private synthesisLine: string | undefined;

  constructor(
    private readonly models: string[],
    private readonly synthesizer: string,
    private readonly out: NodeJS.WriteStream,
  ) {
    this.lines = models.map(() => '');
    this.timer = setInterval(() => this.draw(), 250);
    this.draw();
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'candidate') this.lines[event.candidate.index - 1] = `  ${describe(event)}`;
    else if (event.type === 'ranked') this.lines[event.ranker.index - 1] += `; ${rankingOutcome(event.ranker)}`;
    else this.synthesisStarted = Date.now();
    this.draw();
  }

  stop(synthesis?: SynthesisReport): void {
    clearInterval(this.timer);
    this.synthesisLine = synthesis && `  ${synthesisOutcome(synthesis)}`;
    this.draw();
  }

  private draw(): void {
    const waited = seconds(Date.now() - this.started);
    const rows = this.models.map((model, i) => this.lines[i] || `  … ${model} waiting (${waited})`);
    rows.push(
      this.synthesisLine ??
        (this.synthesisStarted === undefined
          ? `  · ${this.synthesizer} will synthesize`
          : `  … ${this.synthesizer} synthesizing (${seconds(Date.now() - this.synthesisStarted)})`),
    );
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    // A row wider than the terminal would wrap onto two, and moving up by the row count would
    // then redraw over the wrong lines; the width is read each time, as the window may change.
    this.out.write(up + rows.map((row) => `\x1b[2K${fitToWidth(row, this.out.columns)}\n`).join(''));
    this.drawn = rows.length;
  }
}

/** The line cut to fit `columns` with an ellipsis; one column spare, as some terminals wrap on the last. */
export function fitToWidth(line: string, columns: number | undefined): string {
  if (!columns) return line;
  const characters = Array.from(line);
  const room = Math.max(1, columns - 1);
  return characters.length <= room ? line : `${characters.slice(0, room - 1).join('')}…`;
}

function describe(event: RunEvent): string {
  if (event.type === 'synthesis') return `… ${event.model} synthesizing ${count(event.candidates, 'answer')}`;
  if (event.type === 'ranked')
    return `${event.ranker.status === 'answered' && event.ranker.order.length > 0 ? '✔' : '✘'} ${event.ranker.model} ${rankingOutcome(event.ranker)}`;
  const { candidate } = event;
  if (candidate.status === 'answered') return `✔ ${candidate.model} answered in ${seconds(candidate.ms)}`;
  return `✘ ${candidate.model} failed: ${briefly(candidate.status === 'failed' ? candidate.error : undefined)}`;
}

function rankingOutcome(ranker: RankerRecord): string {
  if (ranker.status === 'failed') return `could not rank: ${briefly(ranker.error)}`;
  return ranker.order.length > 0 ? "ranked the others' answers" : 'gave no ranking that could be read';
}

function synthesisOutcome(synthesis: SynthesisReport): string {
  if (synthesis.status === 'answered') return `✔ ${synthesis.model} synthesized in ${seconds(synthesis.ms)}`;
  if (synthesis.status === 'skipped') return `· ${synthesis.model} did not synthesize: ${synthesis.reason}`;
  return `✘ ${synthesis.model} failed: ${briefly(synthesis.error)}`;
}

/** An error on one line: kind, status, OpenRouter's message (the advice is in the footer). */
const briefly = (error: ModelError | undefined) => `${error?.kind}${error?.status ? ` ${error.status}` : ''}: ${error?.message}`;
