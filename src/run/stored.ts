import { z } from 'zod';
import { Deadline } from '../clock.js';
import type { RunFolder, RunStore } from '../store/run-store.js';
import { candidateFile } from './files.js';
import type { RunHandle } from './handle.js';
import { ownerAlive } from './owner.js';
import { RUN_STATUSES, type CandidateRecord, type Owner, type RunRecord } from './record.js';
import type { RunView } from './view.js';

/** run.json holds the prompt, which may be a megabyte and more once escaped. */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;
/** How often a wait on another process's run reads its journal again. */
const POLL_MS = 250;

const LAST_ENTRY_LOST = "The run's last journal entry was never written (its server stopped, or the disk failed); the synthesis it had saved is shown.";

/** Enough of run.json to trust the rest: our own writer made it, but a file on disk can be anything. */
const recordSchema = z.looseObject({
  format: z.literal(1),
  run_id: z.string(),
  request_key: z.string(),
  status: z.enum(RUN_STATUSES),
  owner: z.looseObject({ pid: z.number(), host: z.string(), instance: z.string() }),
  started_at: z.string(),
  updated_at: z.string(),
  resumes: z.number(),
  prompt: z.string(),
  settings: z.looseObject({ models: z.array(z.string()), synthesizer_models: z.array(z.string()), temperature: z.number(), max_tokens: z.number() }),
  candidates: z.array(z.looseObject({ index: z.number(), model: z.string(), status: z.enum(['waiting', 'answered', 'failed']) })),
  synthesis: z.looseObject({ status: z.string(), attempts: z.array(z.looseObject({ model: z.string(), status: z.enum(['answered', 'failed']) })) }),
  totals: z.looseObject({}),
  warnings: z.array(z.string()),
});

export function parseRecord(text: string | undefined): RunRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = recordSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data as unknown as RunRecord) : undefined;
  } catch {
    return undefined;
  }
}

export async function readRecord(folder: RunFolder, maxBytes = MAX_RECORD_BYTES): Promise<RunRecord | undefined> {
  return parseRecord(await folder.read('run.json', maxBytes).catch(() => undefined));
}

/**
 * A run known only from its folder: another process's, or one from before a restart. Its
 * journal says how it stands; a running record whose process is gone is `interrupted`.
 */
export class StoredRun implements RunHandle {
  private constructor(
    readonly folder: RunFolder,
    private record: RunRecord,
    private readonly self: Owner,
    /** The most of run.json it reads: a list reads less than a result. */
    private readonly maxBytes: number,
  ) {}

  static async open(store: RunStore, id: string, self: Owner, maxBytes = MAX_RECORD_BYTES): Promise<StoredRun | undefined> {
    const folder = await store.openRun(id).catch(() => undefined);
    const record = folder && (await readRecord(folder, maxBytes));
    return folder && record?.run_id === id ? new StoredRun(folder, record, self, maxBytes) : undefined;
  }

  get id(): string {
    return this.record.run_id;
  }

  async current(): Promise<Readonly<RunRecord>> {
    // A running record may move on; an interrupted one may be resumed by another process.
    if (this.record.status === 'running' || this.record.status === 'interrupted') this.record = (await readRecord(this.folder, this.maxBytes)) ?? this.record;
    return this.effective();
  }

  async nextChange(ms: number): Promise<void> {
    const seen = this.record.updated_at;
    const deadline = Deadline.after(ms);
    while (deadline.msLeft() > 0 && this.record.updated_at === seen && this.effective().status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, deadline.msLeft())));
      await this.current();
    }
  }

  async view(maxChars: number): Promise<RunView> {
    const record = structuredClone(await this.current());
    const maxBytes = maxChars * 3 + 4;
    const answer = record.synthesis.file ? await this.read(record.synthesis.file, maxBytes) : undefined;
    const answers = new Map<number, string>();
    if (answer === undefined) {
      const names = new Set(await this.folder.list().catch(() => []));
      for (const [i, candidate] of record.candidates.entries()) {
        const file = savedAnswerFile(candidate, names, record.status === 'interrupted');
        const text = file && (await this.read(file, maxBytes));
        if (text === undefined || !file) continue;
        answers.set(i, text);
        if (candidate.status !== 'answered') record.candidates[i] = recovered(candidate, file, text);
      }
    }
    return { record, answer, answers, dir: this.folder.dir };
  }

  cancel(): boolean {
    return false;
  }

  /**
   * The record with `interrupted` for a running one whose process is gone; or, when that
   * process had saved the synthesis (only the journal's last entry is missing), the end it had
   * reached, so that the same request reuses the run instead of asking everyone again.
   */
  private effective(): RunRecord {
    const record = this.record;
    if (record.status !== 'running' || ownerAlive(record, this.self)) return record;
    if (record.synthesis.status !== 'answered' || !record.synthesis.file) return { ...record, status: 'interrupted' };
    const status = record.candidates.every((candidate) => candidate.status === 'answered') ? 'complete' : 'partial';
    return { ...record, status, warnings: [...record.warnings, LAST_ENTRY_LOST] };
  }

  private read(name: string, maxBytes: number): Promise<string | undefined> {
    return this.folder.readStart(name, maxBytes).catch(() => undefined);
  }
}

/**
 * The answer file of a candidate: the one the journal names, or, for an interrupted run, one
 * written before the process was killed but after its last journal entry.
 */
function savedAnswerFile(candidate: CandidateRecord, names: Set<string>, interrupted: boolean): string | undefined {
  if (candidate.status === 'answered' && candidate.file) return candidate.file;
  const file = candidateFile(candidate);
  return interrupted && names.has(file) ? file : undefined;
}

function recovered(candidate: CandidateRecord, file: string, text: string): CandidateRecord {
  return { index: candidate.index, model: candidate.model, status: 'answered', chars: text.length, file, recovered: true };
}
