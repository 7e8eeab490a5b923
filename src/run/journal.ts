import path from 'node:path';
import type { ContentSink } from '../openrouter/decode.js';
import { candidateFile, type AnswerWriter, type RunFiles } from './files.js';
import type { RunRecord } from './record.js';
import { runTotals } from './usage.js';

/**
 * A run's files and its journal (run.json): answers written to their files as they stream in,
 * the reasonings and the synthesis saved whole, and the journal rewritten after each, so that
 * it never names a file that is not there. Nothing at all when runs are not saved.
 */
export class RunJournal {
  /** The answer files being written as the candidates' texts arrive, by 0-based index. */
  private readonly writers = new Map<number, AnswerWriter>();
  /** Files being written, the candidates' and the synthesis'. */
  private readonly candidateSaves: Array<Promise<void>> = [];
  private readonly synthesisSaves: Array<Promise<void>> = [];

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

  /** A candidate's answer has streamed in whole: its file appears, then the journal names it. */
  answerWhole(index: number): void {
    const writer = this.writers.get(index);
    const note = (file: string) => {
      const candidate = this.record.candidates[index];
      if (candidate?.status === 'answered') candidate.file = file;
    };
    if (writer) this.candidateSaves.push(writer.finish().then((file) => this.noted(file, note)));
  }

  /** What streamed in is not an answer (the model failed, or shutdown stopped it): its file goes. */
  answerDropped(index: number): void {
    void this.writers.get(index)?.discard();
  }

  saveReasoning(index: number, reasoning: string | undefined): void {
    if (!reasoning) return;
    this.saveThenNote(this.candidateSaves, candidateFile(this.record.candidates[index]!, '.reasoning.md'), reasoning, (file) => {
      const candidate = this.record.candidates[index];
      if (candidate) candidate.reasoning_file = file;
    });
  }

  saveSynthesis(answer: string, reasoning: string | undefined): void {
    const { synthesis } = this.record;
    this.saveThenNote(this.synthesisSaves, 'final.md', answer, (file) => (synthesis.file = file));
    if (reasoning) this.saveThenNote(this.synthesisSaves, 'synthesis.reasoning.md', reasoning, () => undefined);
  }

  /** Settles once every candidate's file is on disk (or has failed). */
  async candidatesSaved(): Promise<void> {
    await Promise.all(this.candidateSaves);
  }

  /** Settles once the synthesis' files are on disk (or have failed). */
  async synthesisSaved(): Promise<void> {
    await Promise.all(this.synthesisSaves);
  }

  /** Rewrites run.json: true once it is on disk. */
  save(): Promise<boolean> {
    this.record.updated_at = new Date().toISOString();
    this.record.totals = runTotals(this.record);
    return this.files?.saveRecord(this.record) ?? Promise.resolve(false);
  }

  /** Whether the journal names the file of every text a result shows: each answer, and the synthesis if there is one. */
  textsNamed(synthesized: boolean): boolean {
    const answers = this.record.candidates.every((candidate) => candidate.status !== 'answered' || candidate.file !== undefined);
    return answers && (!synthesized || this.record.synthesis.file !== undefined);
  }

  /** Writes a file, then notes its name and rewrites the journal. */
  private saveThenNote(saves: Array<Promise<void>>, name: string, text: string, note: (file: string) => void): void {
    const saving = this.files?.save(name, text).then((file) => this.noted(file, note));
    if (saving) saves.push(saving);
  }

  /** A file is on disk (or failed, and is undefined): the journal notes it. */
  private noted(file: string | undefined, note: (file: string) => void): void {
    if (file) note(file);
    void this.save();
  }
}
