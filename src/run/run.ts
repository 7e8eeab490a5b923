import { monotonicNow } from '../clock.js';
import type { Completion } from '../openrouter/client.js';
import type { ContentSink } from '../openrouter/decode.js';
import type { Agreement } from './agreement/account.js';
import { ChangeSignal } from './change-signal.js';
import { CouncilRecorder } from './council-record.js';
import { lastStepInputs } from './last-step-inputs.js';
import { Stopper, type RunStopped } from './stopper.js';
import { RunJournal } from './journal.js';
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
import type { IndexedAnswer } from './strategies/anonymise.js';
import type { RunTexts } from './view.js';

/**
 * One run: the owner of its state, its journal and its waiters. It goes on until every
 * candidate has answered or failed and the synthesis is done, whatever happens to the calls
 * that wait on it; only `cancel` (an explicit stop) or `interrupt` (its process ending) ends it
 * early. Each step is kept before waiters hear of it: an answer's file before the record names
 * it, the last journal entry before the run settles. The orchestration that drives it is in
 * orchestrate.ts, what it keeps in journal.ts, a council's rankings in council-record.ts.
 */
export class Run {
  readonly id: string;
  readonly key: string;
  readonly request: RunRequest;
  /** The run a follow-up continues. */
  readonly earlier: EarlierRun | undefined;
  private readonly record: RunRecord;
  private readonly answers: Map<number, string>;
  /** Reasoning of candidates that answered nothing else, by 0-based index. */
  private readonly reasonings = new Map<number, string>();
  private answer: string | undefined;
  private readonly journal: RunJournal;
  /** The council's rankings, for the `council` strategy. */
  readonly council: CouncilRecorder;
  private readonly stopper = new Stopper();
  private readonly startedAt = monotonicNow();
  private readonly changes = new ChangeSignal();
  /** Settles when the run has finished and its last journal entry is written (or could not be). */
  readonly settled: Promise<void>;
  private finished!: () => void;
  private savedWhole = false;
  /** Its end is on disk (or the disk refused it): until then, the run reads as running, whatever its record says. */
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
  }

  get signal(): AbortSignal {
    return this.stopper.signal;
  }

  /** True once the run has ended with its journal and every text its results show on disk: it can be found there alone. */
  get onDisk(): boolean {
    return this.savedWhole;
  }

  /** How many steps the run has taken: `nextChange(since)` resolves at once if it has taken one since. */
  get version(): number {
    return this.changes.version;
  }

  /** Running until its end is journaled: no reader hears of an end that is not on disk. */
  get status(): RunStatus {
    return this.ended ? this.record.status : 'running';
  }

  /** The run as its faces see it: a copy, so that a reader holds no part of the live record. */
  state(): RunState {
    return { ...structuredClone(stateOf(this.record)), status: this.status };
  }

  texts(): RunTexts {
    return { answer: this.answer, answers: this.answers, dir: this.journal.dir };
  }

  /** Resolves at the next change of the run's state after the reader's `since` (default: now). */
  nextChange(since?: number): Promise<void> {
    return this.changes.wait(since);
  }

  /** An explicit stop: every upstream request of the run is aborted, and nothing more is billed. */
  cancel(reason: string): void {
    if (this.status === 'running') this.stopper.stop('cancelled', reason);
  }

  /** Its process is ending: stop, and leave the run for a later process to resume. */
  interrupt(reason: string): void {
    if (this.status === 'running') this.stopper.stop('interrupted', reason);
  }

  /** Stopped, but still winding down its requests: it will settle as cancelled or interrupted. */
  get stopping(): boolean {
    return this.status === 'running' && this.stopper.signal.aborted;
  }

  stopped(): RunStopped | undefined {
    return this.stopper.stopped();
  }

  /** The first journal entry: the run exists, every candidate waiting (or, resumed, as saved). */
  started(): Promise<boolean> {
    return this.journal.saveRecord();
  }

  /** Indexes of the models still to ask: all of them, or on a resumed run those with no saved answer. */
  waitingCandidates(): number[] {
    return this.record.candidates.filter((candidate) => candidate.status !== 'answered').map((candidate) => candidate.index - 1);
  }

  /**
   * What the last step reads: every answer (by the candidate's 0-based index), and the
   * reasoning of a model that gave reasoning but no answer (labelled so), since that is all it said.
   */
  synthesisInputs(): { answers: IndexedAnswer[]; reasonings: IndexedAnswer[] } {
    return lastStepInputs(this.record.candidates, this.answers, this.reasonings, (file) => this.journal.path(file));
  }

  /** Where a candidate's text goes as it arrives (see RunJournal.answerSink). */
  answerSink(index: number, keepChars: number): ContentSink | undefined {
    return this.journal.answerSink(index, keepChars);
  }

  /** A candidate answered: its answer is held at once, and the record names its files once they are kept. */
  async answered(index: number, completion: Completion, ms: number): Promise<void> {
    this.answers.set(index, completion.content);
    const candidate = answeredCandidate(this.record.candidates[index]!, completion, ms);
    const [file, reasoningFile] = await Promise.all([
      this.journal.answerWhole(index),
      this.journal.saveReasoning(index, completion.reasoning),
    ]);
    this.settle(index, candidate, { file, reasoningFile });
  }

  /** Its process is ending: the candidate stays waiting, for the process that resumes the run, and its partial file goes. */
  leftWaiting(index: number): void {
    this.journal.answerDropped(index);
  }

  /**
   * A candidate failed. Reasoning it sent without an answer is kept in the folder, and goes to
   * the synthesizer in place of an answer unless max_tokens cut it short: a cut-off thought is no answer.
   */
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

  /**
   * A synthesizer answered (its files are kept from now on; the last journal entry names them once
   * they are kept) or failed. A judge's final answer is the chosen one with its fixes, its whole
   * reply saved beside it.
   */
  synthesisAttempt(attempt: SynthesisAttempt, completion?: Completion, judged?: { answer: string; verdict: VerdictRecord }): void {
    const synthesis = this.record.synthesis;
    if (attempt.status === 'answered' && completion) {
      this.answer = judged?.answer ?? completion.content;
      this.journal.saveSynthesis(this.answer, completion.reasoning, judged && completion.content);
      if (judged) synthesis.verdict = { ...judged.verdict };
      synthesis.status = 'answered';
    }
    synthesis.attempts.push(attempt);
    // An answer ends the run at once: finish writes the journal and wakes the waiters, once, not twice in a row.
    if (synthesis.status !== 'answered') this.step();
  }

  /** The synthesizer's account of where the candidates agreed and differed; null, with why, when it gave none that could be read. */
  accountOfAgreement(agreement: Agreement | null, warning: string | undefined): void {
    this.record.synthesis.agreement = agreement;
    if (warning) this.warn(warning);
  }

  /** Synthesis will not run: nothing to synthesize, or the run was stopped. */
  synthesisSkipped(reason: string): void {
    Object.assign(this.record.synthesis, { status: 'skipped', reason });
    delete this.record.synthesis.model;
  }

  /**
   * The end: the status, and the last journal entry (with the totals), on disk before any waiter
   * hears that the run has ended, so that a result never names what is not saved. When the disk
   * refuses it, the run still ends (its texts are in memory) with a warning, and the journal
   * catches up once the disk takes writes again.
   */
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

  /** A fault in the run's own code: it ends failed, saying why, rather than reading as running for good. */
  async abandon(reason: string): Promise<void> {
    if (this.ended) return;
    this.stopper.stop('cancelled', reason);
    this.warn(reason);
    await this.finish('failed');
  }

  /** Once a journal the disk refused has caught up: whether the run is now whole on disk. */
  async caughtUp(): Promise<boolean> {
    await this.journal.flushed();
    this.savedWhole = this.journal.textsNamed(this.answer !== undefined);
    return this.savedWhole;
  }

  warn(message: string): void {
    if (!this.record.warnings.includes(message)) this.record.warnings.push(message);
  }

  /** A step: its files are kept; the journal is rewritten (in the background) and waiters wake. */
  private step(): void {
    void this.journal.saveRecord();
    this.changes.notify();
  }
}
