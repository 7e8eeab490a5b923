import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { monotonicNow } from '../clock.js';
import type { Completion, TokenUsage } from '../openrouter/client.js';
import { ChangeSignal } from './change-signal.js';
import type { ContentSink } from '../openrouter/decode.js';
import { candidateFile, type AnswerWriter, type RunFiles } from './files.js';
import { answeredCandidate, failedCandidate, freshRecord, resumedRecord, type NewRun } from './new-record.js';
import type { RunView } from './view.js';
import type { ModelError, RunRecord, RunStatus, SynthesisAttempt } from './record.js';
import type { CandidateAnswer } from '../synthesis.js';
import type { RunRequest } from './request.js';
import { sumUsage } from './usage.js';

/**
 * One run: the owner of its state, its journal and its waiters. It goes on until every
 * candidate has answered or failed and the synthesis is done, whatever happens to the calls
 * that wait on it; only `cancel` (a user's stop) or `interrupt` (shutdown) ends it early.
 * The orchestration that drives it is in orchestrate.ts.
 */
export class Run {
  readonly id: string;
  readonly key: string;
  readonly request: RunRequest;
  private readonly record: RunRecord;
  private readonly answers: Map<number, string>;
  /** Reasoning of candidates that answered nothing else, by 0-based index. */
  private readonly reasonings = new Map<number, string>();
  /** The answer files being written as the candidates' texts arrive, by 0-based index. */
  private readonly writers = new Map<number, AnswerWriter>();
  private answer: string | undefined;
  private readonly files: RunFiles | undefined;
  private readonly stopper = new AbortController();
  private readonly startedAt = monotonicNow();
  private readonly changes = new ChangeSignal();
  /** Files being written, the candidates' and the synthesis': the run settles once they are on disk (or have failed). */
  private readonly candidateSaves: Array<Promise<void>> = [];
  private readonly synthesisSaves: Array<Promise<void>> = [];
  /** Settles when the run has finished and its record is saved. */
  readonly settled: Promise<void>;
  private finished!: () => void;

  constructor(init: NewRun) {
    this.id = init.id;
    this.key = init.key;
    this.request = init.request;
    this.files = init.files;
    this.answers = init.resumed?.answers ?? new Map();
    this.record = init.resumed ? resumedRecord(init.resumed.record, init.owner) : freshRecord(init);
    // Every upstream request of the run listens to this signal: no listener cap.
    setMaxListeners(0, this.stopper.signal);
    this.settled = new Promise((resolve) => (this.finished = resolve));
  }

  get signal(): AbortSignal {
    return this.stopper.signal;
  }

  get status(): RunStatus {
    return this.record.status;
  }

  view(): RunView {
    return { record: this.record, answer: this.answer, answers: this.answers, dir: this.files?.dir };
  }

  /** Resolves at the next change of the run's state. */
  nextChange(): Promise<void> {
    return this.changes.wait();
  }

  /** A user's stop: every upstream request of the run is aborted, and nothing more is billed. */
  cancel(reason: string): void {
    if (this.record.status === 'running') this.stopper.abort(new RunStopped('cancelled', reason));
  }

  /** Shutdown: stop, and leave the run for a later process to resume. */
  interrupt(): void {
    if (this.record.status === 'running') this.stopper.abort(new RunStopped('interrupted', 'the server is shutting down'));
  }

  stopped(): RunStopped | undefined {
    return this.stopper.signal.aborted ? (this.stopper.signal.reason as RunStopped) : undefined;
  }

  /** The first journal entry: the run exists, every candidate waiting (or, resumed, as saved). */
  started(): Promise<void> {
    return this.saveRecord();
  }

  /** Indexes of the models still to ask: all of them, or on a resumed run those with no saved answer. */
  waitingCandidates(): number[] {
    return this.record.candidates.filter((candidate) => candidate.status !== 'answered').map((candidate) => candidate.index - 1);
  }

  /**
   * What the synthesizer is given: every answer, and the reasoning of a model that gave
   * reasoning but no answer (labelled so), since that is all it said.
   */
  synthesisInputs(): { answered: number; inputs: CandidateAnswer[] } {
    const inputs = this.record.candidates.flatMap((candidate) => {
      const index = candidate.index - 1;
      const answer = this.answers.get(index);
      if (candidate.status === 'answered' && answer !== undefined) return [{ model: candidate.model, content: answer, chars: candidate.chars, file: this.path(candidate.file) }];
      const reasoning = this.reasonings.get(index);
      if (candidate.status !== 'failed' || reasoning === undefined) return [];
      return [{ model: `${candidate.model} (no answer: its reasoning only)`, content: reasoning, file: this.path(candidate.reasoning_file) }];
    });
    return { answered: this.answers.size, inputs };
  }

  /**
   * Where a candidate's text goes as it arrives: its answer file, so that only the first
   * `keepChars` characters are held in memory. None when runs are not saved: then the
   * whole answer stays in memory, the only place it is.
   */
  answerSink(index: number, keepChars: number): ContentSink | undefined {
    const writer = this.files?.writer(candidateFile(this.record.candidates[index]!));
    if (!writer) return undefined;
    this.writers.set(index, writer);
    return { keepChars, write: (piece) => writer.write(piece) };
  }

  /** A candidate answered: its answer (or its start) is kept for synthesis, and the journal notes its file once whole. */
  answered(index: number, completion: Completion, ms: number): void {
    this.answers.set(index, completion.content);
    this.record.candidates[index] = answeredCandidate(this.record.candidates[index]!, completion, ms);
    // The answer streamed into its file as it came (see answerSink): the file is whole now.
    const writer = this.writers.get(index);
    const noteFile = (file: string) => {
      const current = this.record.candidates[index];
      if (current?.status === 'answered') current.file = file;
    };
    if (writer) this.candidateSaves.push(writer.finish().then((file) => this.noted(file, noteFile)));
    this.saveReasoning(index, completion.reasoning);
    // The journal follows once the answer's file is on disk, naming it.
    this.step(false);
  }

  /** A candidate failed; reasoning it sent without an answer is kept, for the synthesizer and the folder. */
  failed(index: number, error: ModelError, ms: number | undefined, reasoning: string | undefined): void {
    this.record.candidates[index] = failedCandidate(this.record.candidates[index]!, error, ms);
    if (reasoning) this.reasonings.set(index, reasoning);
    void this.writers.get(index)?.discard();
    this.saveReasoning(index, reasoning);
    this.step(true);
  }

  synthesizing(model: string, promptChars: number, trimmed: RunRecord['synthesis']['trimmed']): void {
    Object.assign(this.record.synthesis, { status: 'running', model, prompt_chars: promptChars, trimmed });
    for (const candidate of this.record.candidates) {
      if (candidate.status === 'failed' && this.reasonings.has(candidate.index - 1)) candidate.reasoning_to_synthesis = true;
    }
    this.step(true);
  }

  synthesisAttempt(attempt: SynthesisAttempt, completion?: Completion): void {
    const synthesis = this.record.synthesis;
    synthesis.attempts.push(attempt);
    if (attempt.status === 'answered' && completion) {
      this.answer = completion.content;
      synthesis.status = 'answered';
      this.saveThenNote(this.synthesisSaves, 'final.md', completion.content, (file) => (synthesis.file = file));
      if (completion.reasoning) this.saveThenNote(this.synthesisSaves, 'synthesis.reasoning.md', completion.reasoning, () => undefined);
    }
    // An answer is journaled once final.md is on disk, naming it; a failure at once.
    this.step(attempt.status === 'failed');
  }

  /** Synthesis will not run: nothing to synthesize, or the run was stopped. */
  synthesisSkipped(reason: string): void {
    Object.assign(this.record.synthesis, { status: 'skipped', reason });
    delete this.record.synthesis.model;
  }

  /**
   * The end: the status, the totals, and a last journal entry. Waiters wake without waiting
   * for the disk between the synthesizer's answer and the reply: final.md is named (in the
   * journal and later results) once it is there, and the run is settled then. The candidates'
   * files were written long before, as each answered.
   */
  async finish(status: RunStatus): Promise<void> {
    await Promise.all(this.candidateSaves);
    const { record } = this;
    if (status === 'candidates_only') record.synthesis.status = 'failed';
    record.status = status;
    record.finished_at = new Date().toISOString();
    record.elapsed_ms = Math.round(monotonicNow() - this.startedAt);
    // With a synthesis, the candidates' texts are on disk and no longer shown: let them go.
    if (this.answer !== undefined) this.answers.clear();
    this.reasonings.clear();
    record.totals = this.totals();
    this.step(false);
    await Promise.all(this.synthesisSaves);
    await this.saveRecord();
    this.finished();
  }

  warn(message: string): void {
    if (!this.record.warnings.includes(message)) this.record.warnings.push(message);
  }

  totals(): TokenUsage {
    const candidates = this.record.candidates.map((candidate) => (candidate.status === 'answered' ? candidate.usage : undefined));
    const synthesis = this.record.synthesis.attempts.map((attempt) => (attempt.status === 'answered' ? attempt.usage : undefined));
    return sumUsage([...candidates, ...synthesis]);
  }

  /** Writes a file, then notes its name and rewrites the journal, so the journal never names a file that is not there. */
  private saveThenNote(saves: Array<Promise<void>>, name: string, text: string, note: (file: string) => void): void {
    const saving = this.files?.save(name, text).then((file) => this.noted(file, note));
    if (saving) saves.push(saving);
  }

  /** A file is on disk (or failed, and is undefined): the journal notes it. */
  private noted(file: string | undefined, note: (file: string) => void): void {
    if (file) note(file);
    void this.saveRecord();
  }

  private saveReasoning(index: number, reasoning: string | undefined): void {
    const candidate = this.record.candidates[index]!;
    if (!reasoning) return;
    this.saveThenNote(this.candidateSaves, candidateFile(candidate, '.reasoning.md'), reasoning, (file) => {
      const current = this.record.candidates[index];
      if (current) current.reasoning_file = file;
    });
  }

  private saveRecord(): Promise<void> {
    this.record.updated_at = new Date().toISOString();
    this.record.totals = this.totals();
    return this.files?.saveRecord(this.record) ?? Promise.resolve();
  }

  private path(file: string | undefined): string | undefined {
    return file && this.files?.dir && path.join(this.files.dir, file);
  }

  /** Every step wakes whoever waits on the run; `journal` rewrites run.json now (or the step's file save will). */
  private step(journal: boolean): void {
    if (journal) void this.saveRecord();
    this.changes.notify();
  }
}

/** Why a run stopped early: its status, and the reason in words. */
export class RunStopped extends Error {
  constructor(
    readonly status: 'cancelled' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}
