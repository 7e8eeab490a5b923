import type { Logger } from 'pino';
import type { ContentSink } from '../openrouter/decode.js';
import { fileIn, fileSafe, type RunPlace, type TextWriter } from '../store/store.js';
import { CoalescingWriter, type Backoff } from './coalesce.js';
import type { AnsweredRanker, CouncilRecord, RankerRecord, RunRecord } from './record.js';
import { stepUsages, sumUsage } from './usage.js';

/**
 * Each save resolves to the file's name only once kept, so the record never names a missing file;
 * a failed save costs a warning, never the answer. Rewrites of one name are coalesced, and the
 * record, when the store refuses it, is tried again until it lands or a newer one replaces it.
 */
export class RunJournal {
  private readonly writers = new Map<number, TextWriter>();
  private readonly writes: CoalescingWriter | undefined;
  private synthesis: Promise<SynthesisFiles> | undefined;

  constructor(
    private readonly record: RunRecord,
    private readonly place: RunPlace | undefined,
    private readonly warn: (message: string) => void,
    private readonly log: Logger,
    /** How a refused record is tried again. */
    catchUp?: Backoff,
  ) {
    this.writes = place && new CoalescingWriter(async (name, text) => void (await place.write(name, text)), catchUp);
  }

  get dir(): string | undefined {
    return this.place?.dir;
  }

  path(file: string | undefined): string | undefined {
    return file && this.place && fileIn(this.place.dir, file);
  }

  /** Only the first `keepChars` characters are held in memory; unsaved runs keep the whole answer there. */
  answerSink(index: number, keepChars: number): ContentSink | undefined {
    const writer = this.place?.writer(candidateFile(this.record.candidates[index]!));
    if (!writer) return undefined;
    this.writers.set(index, writer);
    return { keepChars, write: (piece) => writer.write(piece) };
  }

  async answerWhole(index: number): Promise<string | undefined> {
    const writer = this.writers.get(index);
    this.writers.delete(index);
    const name = candidateFile(this.record.candidates[index]!);
    return writer?.finish().then(
      () => name,
      (error: unknown) => this.failed(name, error),
    );
  }

  answerDropped(index: number): void {
    void this.writers.get(index)?.discard();
    this.writers.delete(index);
  }

  saveReasoning(index: number, reasoning: string | undefined): Promise<string | undefined> {
    return reasoning ? this.save(candidateFile(this.record.candidates[index]!, '.reasoning.md'), reasoning) : Promise.resolve(undefined);
  }

  /** `saveLast` names the files once they are kept. */
  saveSynthesis(answer: string, reasoning: string | undefined, reply?: string): void {
    this.synthesis = Promise.all([
      this.save(FINAL_FILE, answer),
      reasoning ? this.save('synthesis.reasoning.md', reasoning) : undefined,
      reply === undefined ? undefined : this.save(REPLY_FILE, reply),
    ]).then(([file, , replyFile]) => ({ file, replyFile }));
  }

  async save(name: string, text: string): Promise<string | undefined> {
    if (!this.writes) return undefined;
    return this.writes.write(name, text).then(
      () => name,
      (error: unknown) => this.failed(name, error),
    );
  }

  /** Each entry replaces the last whole, so a crash leaves the latest completed step; a refused one is retried until it lands. */
  async saveRecord(): Promise<boolean> {
    if (!this.writes) return false;
    this.record.updated_at = new Date().toISOString();
    this.record.totals = sumUsage(stepUsages(this.record, { reused: true }));
    const text = `${JSON.stringify(this.record, null, 2)}\n`;
    return this.writes.write(RECORD_FILE, text, { catchUp: true }).then(
      () => true,
      (error: unknown) => this.failed(RECORD_FILE, error) ?? false,
    );
  }

  async saveLast(): Promise<boolean> {
    const saved = await this.synthesis;
    if (saved?.file) this.record.synthesis.file = saved.file;
    if (saved?.replyFile && this.record.synthesis.verdict) this.record.synthesis.verdict.reply_file = saved.replyFile;
    return this.saveRecord();
  }

  async flushed(): Promise<void> {
    await this.writes?.flushed(RECORD_FILE);
  }

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

interface SynthesisFiles {
  file?: string;
  replyFile?: string;
}

export const candidateFile = (candidate: { index: number; model: string }, suffix = '.md') =>
  `candidate-${candidate.index}_${fileSafe(candidate.model)}${suffix}`;

/** The council's part of a run's record: each ranker's whole reply is saved before the record names it. */
export class CouncilRecorder {
  constructor(
    private readonly record: RunRecord,
    private readonly journal: RunJournal,
    private readonly step: () => void,
  ) {}

  /** A resumed run asks none of these again. */
  saved(): AnsweredRanker[] {
    return this.record.council?.rankings.flatMap((ranker) => (ranker.status === 'answered' ? [ranker] : [])) ?? [];
  }

  async ranked(ranker: RankerRecord, reply?: string): Promise<void> {
    const file = reply === undefined ? undefined : await this.journal.save(candidateFile(ranker, '.ranking.md'), reply);
    this.council().rankings.push(file && ranker.status === 'answered' ? { ...ranker, file } : ranker);
    this.step();
  }

  done(outcome: Pick<CouncilRecord, 'aggregate' | 'note'>): void {
    Object.assign(this.council(), outcome);
  }

  private council(): CouncilRecord {
    this.record.council ??= { rankings: [] };
    return this.record.council;
  }
}
