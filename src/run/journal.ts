import path from 'node:path';
import type { ContentSink } from '../openrouter/decode.js';
import { candidateFile, type AnswerWriter, type RunFiles } from './files.js';
import type { RunRecord } from './record.js';
import { runTotals } from './usage.js';

/**
 * A run's files and its journal (run.json): answers written to their files as they stream in,
 * the reasonings and the synthesis saved whole. Each save resolves to the file's name once it
 * is on disk (undefined, with a warning, when it could not be), so the run names a file only
 * after it is there. Nothing at all when runs are not saved.
 */
export class RunJournal {
  /** The answer files being written as the candidates' texts arrive, by 0-based index. */
  private readonly writers = new Map<number, AnswerWriter>();
  /** The entry to be written at the end of this turn of the event loop, with every step taken meanwhile. */
  private entry: Promise<boolean> | undefined;

  constructor(
    private readonly record: RunRecord,
    private readonly files: RunFiles | undefined,
  ) {}

  get dir(): string | undefined {
    return this.files?.dir;
  }

  /** A file of the run by its full path. */
  path(file: string | undefined): string | undefined {
    return file && this.files?.dir && path.join(this.files.dir, file);
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

  /** A candidate's answer has streamed in whole: resolves to its file's name once it is in the run folder. */
  async answerWhole(index: number): Promise<string | undefined> {
    const writer = this.writers.get(index);
    this.writers.delete(index);
    return writer?.finish();
  }

  /** What streamed in is not an answer (the model failed, or the run was stopped): its file goes. */
  answerDropped(index: number): void {
    void this.writers.get(index)?.discard();
    this.writers.delete(index);
  }

  async saveReasoning(index: number, reasoning: string | undefined): Promise<string | undefined> {
    return reasoning ? this.files?.save(candidateFile(this.record.candidates[index]!, '.reasoning.md'), reasoning) : undefined;
  }

  /** The synthesis: resolves to final.md's name once it is on disk (its reasoning is saved beside it). */
  async saveSynthesis(answer: string, reasoning: string | undefined): Promise<string | undefined> {
    const [file] = await Promise.all([
      this.files?.save('final.md', answer),
      reasoning ? this.files?.save('synthesis.reasoning.md', reasoning) : undefined,
    ]);
    return file;
  }

  /** A judge's or a council member's whole reply, beside the answer it is about. */
  async saveReply(name: string, reply: string): Promise<string | undefined> {
    return this.files?.save(name, reply);
  }

  /**
   * Rewrites run.json: true once this entry (or a later one) is on disk. The steps of one turn
   * of the event loop (a last answer and the synthesis it starts) make one entry, written once.
   */
  save(): Promise<boolean> {
    const files = this.files;
    if (!files) return Promise.resolve(false);
    this.entry ??= new Promise((resolve) =>
      setImmediate(() => {
        this.entry = undefined;
        this.record.updated_at = new Date().toISOString();
        this.record.totals = runTotals(this.record);
        resolve(files.saveRecord(this.record));
      }),
    );
    return this.entry;
  }

  /** Settles once the journal's latest entry is on disk (at once when runs are not saved). */
  async flushed(): Promise<void> {
    await this.entry;
    await this.files?.recordFlushed();
  }

  /** Whether the journal names the file of every text a result shows: each answer, and the synthesis if there is one. */
  textsNamed(synthesized: boolean): boolean {
    const answers = this.record.candidates.every((candidate) => candidate.status !== 'answered' || candidate.file !== undefined);
    return answers && (!synthesized || this.record.synthesis.file !== undefined);
  }
}
