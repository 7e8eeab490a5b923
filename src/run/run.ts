import { setMaxListeners } from 'node:events';
import { monotonicNow } from '../clock.js';
import type { Completion } from '../openrouter/client.js';
import type { ContentSink } from '../openrouter/decode.js';
import type { Agreement } from '../prompts/agreement/account.js';
import { ChangeSignal } from './change-signal.js';
import { lastStepInputs } from './last-step-inputs.js';
import { CouncilRecorder, RunJournal } from './journal.js';
import type { EarlierRun } from './follow-up.js';
import { answeredCandidate, failedCandidate, freshRecord, resumedRecord, type NewRun, type SettledCandidate } from './new-record.js';
import {
  stateOf,
  type ModelError,
  type RunRecord,
  type RunState,
  type RunStatus,
  type SynthesisAttempt,
  type VerdictRecord,
} from './record.js';
import type { RunRequest } from './request.js';
import type { IndexedAnswer } from '../prompts/anonymise.js';
import type { RunTexts } from './service.js';

/** Why a run stopped before its end: a user's cancel, or its process stopping (it is resumed later). */
class RunStopped extends Error {
  constructor(
    readonly status: 'cancelled' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}

/**
 * One run, owning its state, journal and waiters; only `stop` ends it early.
 * Each step is kept on disk before waiters hear of it, so a result never names what is not saved.
 */
export class Run {
  readonly id: string;
  readonly key: string;
  readonly request: RunRequest;
  readonly earlier: EarlierRun | undefined;
  private readonly record: RunRecord;
  private readonly answers: Map<number, string>;
  /** Reasoning of candidates that answered nothing else, by 0-based index. */
  private readonly reasonings = new Map<number, string>();
  private answer: string | undefined;
  private readonly journal: RunJournal;
  readonly council: CouncilRecorder;
  /** Every upstream request of the run listens to it, so a stop aborts them all at once; the first stop wins. */
  private readonly stopper = new AbortController();
  private readonly startedAt = monotonicNow();
  private readonly changes = new ChangeSignal();
  /** Settles once the last journal entry is written (or could not be). */
  readonly settled: Promise<void>;
  private finished!: () => void;
  private savedWhole = false;
  /** Until its end is on disk (or refused), the run reads as running whatever its record says. */
  private ended = false;

  constructor(init: NewRun) {
    this.id = init.id;
    this.key = init.key;
    this.request = init.request;
    this.earlier = init.earlier;
    this.answers = init.resumed?.answers ?? new Map();
    this.record = init.resumed ? resumedRecord(init.resumed.record, init.owner, init.cost) : freshRecord(init);
    this.journal = new RunJournal(this.record, init.place, (message) => this.warn(message), init.log);
    this.council = new CouncilRecorder(this.record, this.journal, () => this.step());
    this.settled = new Promise((resolve) => (this.finished = resolve));
    setMaxListeners(0, this.stopper.signal);
  }

  get signal(): AbortSignal {
    return this.stopper.signal;
  }

  /** Ended with its journal and every text it shows on disk: it can be found there alone. */
  get onDisk(): boolean {
    return this.savedWhole;
  }

  get version(): number {
    return this.changes.version;
  }

  get status(): RunStatus {
    return this.ended ? this.record.status : 'running';
  }

  /** A copy, so that a reader holds no part of the live record. */
  state(): RunState {
    return { ...structuredClone(stateOf(this.record)), status: this.status };
  }

  texts(): RunTexts {
    return { answer: this.answer, answers: this.answers, dir: this.journal.dir };
  }

  nextChange(since?: number): Promise<void> {
    return this.changes.wait(since);
  }

  stop(status: RunStopped['status'], reason: string): void {
    if (this.status === 'running') this.stopper.abort(new RunStopped(status, reason));
  }

  get stopping(): boolean {
    return this.status === 'running' && this.stopper.signal.aborted;
  }

  stopped(): RunStopped | undefined {
    return this.stopper.signal.aborted ? (this.stopper.signal.reason as RunStopped) : undefined;
  }

  started(): Promise<boolean> {
    return this.journal.saveRecord();
  }

  waitingCandidates(): number[] {
    return this.record.candidates.filter((candidate) => candidate.status !== 'answered').map((candidate) => candidate.index - 1);
  }

  synthesisInputs(): { answers: IndexedAnswer[]; reasonings: IndexedAnswer[] } {
    return lastStepInputs(this.record.candidates, this.answers, this.reasonings, (file) => this.journal.path(file));
  }

  answerSink(index: number, keepChars: number): ContentSink | undefined {
    return this.journal.answerSink(index, keepChars);
  }

  /** The record names the answer's files only once they are kept. */
  async answered(index: number, completion: Completion, ms: number): Promise<void> {
    this.answers.set(index, completion.content);
    const candidate = answeredCandidate(this.record.candidates[index]!, completion, ms);
    const [file, reasoningFile] = await Promise.all([
      this.journal.answerWhole(index),
      this.journal.saveReasoning(index, completion.reasoning),
    ]);
    this.settle(index, candidate, { file, reasoningFile });
  }

  /** The candidate stays waiting for the process that resumes the run; its partial file goes. */
  leftWaiting(index: number): void {
    this.journal.answerDropped(index);
  }

  /** Reasoning sent without an answer goes to the synthesizer instead, unless max_tokens cut it short. */
  async failed(index: number, error: ModelError, ms: number | undefined, reasoning: string | undefined): Promise<void> {
    if (reasoning && error.kind !== 'truncated') this.reasonings.set(index, reasoning);
    this.journal.answerDropped(index);
    const reasoningFile = await this.journal.saveReasoning(index, reasoning);
    this.settle(index, failedCandidate(this.record.candidates[index]!, error, ms), { reasoningFile });
  }

  private settle(index: number, candidate: SettledCandidate, files: { file?: string; reasoningFile?: string }): void {
    if (files.file && candidate.status === 'answered') candidate.file = files.file;
    if (files.reasoningFile) candidate.reasoning_file = files.reasoningFile;
    this.record.candidates[index] = candidate;
    this.step();
  }

  synthesizing(model: string, promptChars: number, trimmed: RunRecord['synthesis']['trimmed']): void {
    Object.assign(this.record.synthesis, { status: 'running', model, prompt_chars: promptChars, trimmed });
    for (const candidate of this.record.candidates) {
      if (candidate.status === 'failed' && this.reasonings.has(candidate.index - 1)) candidate.reasoning_to_synthesis = true;
    }
    this.step();
  }

  /** A judge's final answer is the chosen one with its fixes, its whole reply saved beside it. */
  synthesisAttempt(attempt: SynthesisAttempt, completion?: Completion, judged?: { answer: string; verdict: VerdictRecord }): void {
    const synthesis = this.record.synthesis;
    if (attempt.status === 'answered' && completion) {
      this.answer = judged?.answer ?? completion.content;
      this.journal.saveSynthesis(this.answer, completion.reasoning, judged && completion.content);
      if (judged) synthesis.verdict = { ...judged.verdict };
      synthesis.status = 'answered';
    }
    synthesis.attempts.push(attempt);
    // An answer ends the run at once: finish writes the journal and wakes the waiters.
    if (synthesis.status !== 'answered') this.step();
  }

  accountOfAgreement(agreement: Agreement | null, warning: string | undefined): void {
    this.record.synthesis.agreement = agreement;
    if (warning) this.warn(warning);
  }

  synthesisSkipped(reason: string): void {
    Object.assign(this.record.synthesis, { status: 'skipped', reason });
    delete this.record.synthesis.model;
  }

  /** When the disk refuses the last entry, the run still ends with a warning and the journal catches up later. */
  async finish(status: RunStatus): Promise<void> {
    const { record } = this;
    if (status === 'candidates_only') record.synthesis.status = 'failed';
    record.status = status;
    record.finished_at = new Date().toISOString();
    record.elapsed_ms = Math.round(monotonicNow() - this.startedAt);
    // With a synthesis, the candidates' texts are on disk and no longer shown: let them go.
    if (this.answer !== undefined) this.answers.clear();
    this.reasonings.clear();
    this.savedWhole = (await this.journal.saveLast()) && this.journal.textsNamed(this.answer !== undefined);
    this.ended = true;
    this.changes.notify();
    this.finished();
  }

  /** A fault in the run's own code ends it failed rather than leaving it running for good. */
  async abandon(reason: string): Promise<void> {
    if (this.ended) return;
    this.stopper.abort(new RunStopped('cancelled', reason));
    this.warn(reason);
    await this.finish('failed');
  }

  async caughtUp(): Promise<boolean> {
    await this.journal.flushed();
    this.savedWhole = this.journal.textsNamed(this.answer !== undefined);
    return this.savedWhole;
  }

  warn(message: string): void {
    if (!this.record.warnings.includes(message)) this.record.warnings.push(message);
  }

  private step(): void {
    void this.journal.saveRecord();
    this.changes.notify();
  }
}
