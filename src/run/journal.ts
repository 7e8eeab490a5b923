import path from 'node:path';
import type { Logger } from 'pino';
import type { ContentSink } from '../openrouter/decode.js';
import { fileSafe, type RunPlace, type TextWriter } from '../store/store.js';
import type { RunRecord } from './record.js';
import { runTotals } from './usage.js';

/**
 * What a run keeps: its journal (run.json), each answer as it streams in, reasonings and the
 * synthesis whole. Each save resolves to the text's name once the store has it (undefined, with
 * a warning, when it could not), so the record names a file only once it is there. A text that
 * cannot be kept costs the run a warning, never its answer. Nothing at all when runs are not saved.
 */
export class RunJournal {
  /** The answers being kept as they stream in, by 0-based index. */
  private readonly writers = new Map<number, TextWriter>();
  /** The synthesis's texts being kept, and the names they are to have. */
  private synthesis: Promise<SynthesisFiles> | undefined;

  constructor(
    private readonly record: RunRecord,
    private readonly place: RunPlace | undefined,
    private readonly warn: (message: string) => void,
    private readonly log: Logger,
  ) {}

  get dir(): string | undefined {
    return this.place?.dir;
  }

  /** A file of the run by its full path. */
  path(file: string | undefined): string | undefined {
    return file && this.place && path.join(this.place.dir, file);
  }

  /**
   * Where a candidate's text goes as it arrives, so that only the first `keepChars` characters
   * are held in memory. None when runs are not saved: the whole answer then stays in memory.
   */
  answerSink(index: number, keepChars: number): ContentSink | undefined {
    const writer = this.place?.writer(candidateFile(this.record.candidates[index]!));
    if (!writer) return undefined;
    this.writers.set(index, writer);
    return { keepChars, write: (piece) => writer.write(piece) };
  }

  /** A candidate's answer has streamed in whole: resolves to its file's name once it is kept. */
  async answerWhole(index: number): Promise<string | undefined> {
    const writer = this.writers.get(index);
    this.writers.delete(index);
    const name = candidateFile(this.record.candidates[index]!);
    return writer?.finish().then(
      () => name,
      (error: unknown) => this.failed(name, error),
    );
  }

  /** What streamed in is not an answer (the model failed, or the run was stopped): its file goes. */
  answerDropped(index: number): void {
    void this.writers.get(index)?.discard();
    this.writers.delete(index);
  }

  saveReasoning(index: number, reasoning: string | undefined): Promise<string | undefined> {
    return reasoning ? this.save(candidateFile(this.record.candidates[index]!, '.reasoning.md'), reasoning) : Promise.resolve(undefined);
  }

  /** Starts keeping the synthesis: final.md, its reasoning beside it and, for a judge, its whole reply. `saveLast` names them. */
  saveSynthesis(answer: string, reasoning: string | undefined, reply?: string): void {
    this.synthesis = Promise.all([
      this.save(FINAL_FILE, answer),
      reasoning ? this.save('synthesis.reasoning.md', reasoning) : undefined,
      reply === undefined ? undefined : this.save(REPLY_FILE, reply),
    ]).then(([file, , replyFile]) => ({ file, replyFile }));
  }

  /** Keeps `text` as `name`: resolves to the name once kept, or undefined (with a warning) when it could not be. */
  async save(name: string, text: string): Promise<string | undefined> {
    if (!this.place) return undefined;
    return this.place.write(name, text).then(
      () => name,
      (error: unknown) => this.failed(name, error),
    );
  }

  /**
   * Rewrites run.json: true once this entry (or a later one) is kept. Each entry replaces the
   * last whole, so a crash leaves the latest step that completed; one the store refuses is tried
   * again until it lands, so the journal catches up without waiting for the run's next step.
   */
  async saveRecord(): Promise<boolean> {
    if (!this.place) return false;
    this.record.updated_at = new Date().toISOString();
    this.record.totals = runTotals(this.record);
    const text = `${JSON.stringify(this.record, null, 2)}\n`;
    return this.place.write(RECORD_FILE, text, { catchUp: true }).then(
      () => true,
      (error: unknown) => this.failed(RECORD_FILE, error) ?? false,
    );
  }

  /** The run's last entry, once the synthesis's texts are kept (naming those that were): true once it is kept. */
  async saveLast(): Promise<boolean> {
    const saved = await this.synthesis;
    if (saved?.file) this.record.synthesis.file = saved.file;
    if (saved?.replyFile && this.record.synthesis.verdict) this.record.synthesis.verdict.reply_file = saved.replyFile;
    return this.saveRecord();
  }

  /** Settles once the journal's latest entry is kept (at once when runs are not saved). */
  async flushed(): Promise<void> {
    await this.place?.flushed(RECORD_FILE);
  }

  /** Whether the journal names the file of every text a result shows: each answer, and the synthesis if there is one. */
  textsNamed(synthesized: boolean): boolean {
    const answers = this.record.candidates.every((candidate) => candidate.status !== 'answered' || candidate.file !== undefined);
    return answers && (!synthesized || this.record.synthesis.file !== undefined);
  }

  private failed(name: string, error: unknown): undefined {
    const message = `could not save ${name}: ${(error as Error).message}`;
    this.warn(message);
    this.log.error({ err: error }, message);
    return undefined;
  }
}

const RECORD_FILE = 'run.json';
const FINAL_FILE = 'final.md';
const REPLY_FILE = 'judge.reply.md';

/** The files of a synthesis: final.md, and a judge's whole reply. */
interface SynthesisFiles {
  file?: string;
  replyFile?: string;
}

/** The file a candidate's answer (or, with another suffix, its reasoning) is saved as. */
export const candidateFile = (candidate: { index: number; model: string }, suffix = '.md') =>
  `candidate-${candidate.index}_${fileSafe(candidate.model)}${suffix}`;
