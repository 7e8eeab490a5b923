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
  /** final.md, made when the synthesis starts, so that its answer is saved without waiting for a file to be made. */
  private finalWriter: AnswerWriter | undefined;
  /** That entry is the run's last, naming the synthesis's files: put in place after them (`saveLast`). */
  private last: LastEntry | undefined;
  /** The synthesis's files being saved, and the names they are to have. */
  private synthesis: { named: SynthesisFiles; saved: Promise<SynthesisFiles> } | undefined;

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

  /** The synthesis has started: final.md is made now, while the synthesizer works, and filled once it answers. */
  openSynthesis(): void {
    this.finalWriter ??= this.files?.writer(FINAL_FILE, { warn: false, flush: true });
  }

  /** No synthesis is saved (none answered, or the run was stopped): the final.md made for it goes. */
  async dropSynthesis(): Promise<void> {
    const writer = this.finalWriter;
    this.finalWriter = undefined;
    await writer?.discard();
  }

  /**
   * Starts saving the synthesis: final.md (its reasoning beside it) and, for a judge, its whole
   * reply. The run's last entry names them once they are on disk (`saveLast`).
   */
  saveSynthesis(answer: string, reasoning: string | undefined, reply?: string): void {
    const named: SynthesisFiles = { file: FINAL_FILE, ...(reply === undefined ? {} : { replyFile: REPLY_FILE }) };
    const saved = Promise.all([
      this.saveFinal(answer),
      reasoning ? this.files?.save('synthesis.reasoning.md', reasoning) : undefined,
      reply === undefined ? undefined : this.files?.save(REPLY_FILE, reply),
    ]).then(([file, , replyFile]): SynthesisFiles => ({ file, replyFile }));
    this.synthesis = { named, saved };
  }

  private async saveFinal(answer: string): Promise<string | undefined> {
    const writer = this.finalWriter;
    this.finalWriter = undefined;
    await writer?.write(answer);
    // Made when the synthesis started, the file may have failed then (a disk full at that moment):
    // it is written whole now, with a warning only if that fails too.
    return (await writer?.finish()) ?? this.files?.save(FINAL_FILE, answer);
  }

  /** A council member's whole reply, beside the answer it is about. */
  async saveReply(name: string, reply: string): Promise<string | undefined> {
    return this.files?.save(name, reply);
  }

  /**
   * Rewrites run.json: true once this entry (or a later one) is on disk. The steps of one turn
   * of the event loop (a last answer and the synthesis it starts) make one entry, written once.
   */
  save(last?: LastEntry): Promise<boolean> {
    const files = this.files;
    if (!files) return Promise.resolve(false);
    if (last) this.last = last;
    this.entry ??= new Promise((resolve) =>
      setImmediate(() => {
        const { last } = this;
        this.entry = this.last = undefined;
        this.record.updated_at = new Date().toISOString();
        this.record.totals = runTotals(this.record);
        resolve(files.saveRecord(last ? withSynthesisFiles(this.record, last.named) : this.record, last?.after));
      }),
    );
    return this.entry;
  }

  /**
   * The run's last entry: true once it is on disk. With a synthesis being saved, the entry is
   * written meanwhile and put in place only after the synthesis's files, naming them; should
   * one of them not be saved, the record names those that were and the entry is written again.
   */
  async saveLast(): Promise<boolean> {
    const synthesis = this.synthesis;
    if (!synthesis) return this.save();
    this.synthesis = undefined;
    const whole = synthesis.saved.then((saved) => saved.file !== undefined && saved.replyFile === synthesis.named.replyFile);
    const written = await this.save({ named: synthesis.named, after: whole });
    nameSynthesisFiles(this.record.synthesis, await synthesis.saved);
    return (await whole) ? written : this.save();
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

const FINAL_FILE = 'final.md';
const REPLY_FILE = 'judge.reply.md';

/** The files of a synthesis: final.md, and a judge's whole reply. */
interface SynthesisFiles {
  file?: string;
  replyFile?: string;
}

/** A last entry naming files still being saved: written once `after` says they are all on disk. */
interface LastEntry {
  named: SynthesisFiles;
  after: Promise<boolean>;
}

/** Names the synthesis's files that are on disk in `synthesis`. */
function nameSynthesisFiles(synthesis: RunRecord['synthesis'], { file, replyFile }: SynthesisFiles): void {
  if (file) synthesis.file = file;
  if (replyFile && synthesis.verdict) synthesis.verdict.reply_file = replyFile;
}

/** The record as it will be once the synthesis's files are on disk; the record itself is unchanged. */
function withSynthesisFiles(record: RunRecord, named: SynthesisFiles): RunRecord {
  const synthesis = { ...record.synthesis, ...(record.synthesis.verdict ? { verdict: { ...record.synthesis.verdict } } : {}) };
  nameSynthesisFiles(synthesis, named);
  return { ...record, synthesis };
}
