import { setTimeout as sleep } from 'node:timers/promises';
import { err, ok, type Result } from '../result.js';
import type { RunPlace, RunStorage } from '../store/store.js';
import { ChangeSignal, changeWithin, waitsForChange } from './change-signal.js';
import { candidateFile } from './journal.js';
import type { Liveness } from './liveness.js';
import { STATUS, recordSchema, type CandidateRecord, type RunRecord } from './record.js';
import type { LookupError, RunTexts } from './service.js';

/** run.json holds the prompt, which may be a megabyte and more once escaped. */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;

const LAST_ENTRY_LOST =
  "The run's last journal entry was never written (its process stopped, or the disk failed); the synthesis it had saved is shown.";

async function readRecord(folder: RunPlace, maxBytes = MAX_RECORD_BYTES): Promise<Result<RunRecord, LookupError>> {
  const id = folder.name;
  let json: unknown;
  try {
    const text = await folder.read('run.json', maxBytes);
    if (text === undefined) return err({ kind: 'not_found', message: `run ${id} has no run.json (yet) in ${folder.dir}` });
    json = JSON.parse(text);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_STORE_TOO_LARGE')
      return err({ kind: 'too_large', message: `run ${id}'s run.json is larger than ${maxBytes} bytes` });
    const why = error instanceof SyntaxError ? 'run.json is not valid JSON' : `run.json cannot be read: ${(error as Error).message}`;
    return err(damaged(id, why));
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    return err(damaged(id, `run.json does not have the journal's shape (${issue?.path.join('.') || 'top'}: ${issue?.message})`));
  }
  const unfit = unfitRecord(id, parsed.data);
  return unfit ? err(damaged(id, unfit)) : ok(parsed.data);
}

/** Resuming and showing rely on the candidates being the run's models, one each in order. */
function unfitRecord(id: string, { run_id, candidates, settings }: RunRecord): string | undefined {
  if (run_id !== id) return `run.json names another run (${run_id.slice(0, 40)})`;
  const { length } = settings.models;
  if (candidates.length !== length) return `run.json has ${candidates.length} candidates for ${length} models`;
  const place = candidates.findIndex((candidate, i) => candidate.index !== i + 1);
  if (place >= 0) return `run.json names candidate ${candidates[place]!.index} in place ${place + 1} of ${length}`;
  return undefined;
}

const damaged = (id: string, why: string): LookupError => ({
  kind: 'damaged',
  message: `run ${id} is damaged: ${why}. Its answer files may still be in its folder; the same request again starts a new run.`,
});

/** A run known only from its folder; a running record whose process is gone is `interrupted`. */
export class StoredRun {
  private ownerAlive = false;

  constructor(
    readonly folder: RunPlace,
    private record: RunRecord,
    private readonly liveness: Liveness,
    /** The most of run.json it reads: a list reads less than a result. */
    private readonly maxBytes: number,
  ) {}

  get id(): string {
    return this.record.run_id;
  }

  /** Read again while it may still change; a damaged journal keeps the last good read. */
  async refresh(): Promise<Readonly<RunRecord>> {
    const { settled, resumable } = STATUS[this.record.status];
    if (!settled || resumable) {
      const read = await readRecord(this.folder, this.maxBytes);
      if (read.ok) this.record = read.value;
      await this.askOwner();
    }
    return this.effective();
  }

  effective(): RunRecord {
    const record = this.record;
    if (record.status !== 'running' || this.ownerAlive) return record;
    // Its process is gone; with the synthesis saved, the run ended as far as the user is concerned.
    if (record.synthesis.status !== 'answered' || !record.synthesis.file) return { ...record, status: 'interrupted' };
    const status = record.candidates.every((candidate) => candidate.status === 'answered') ? 'complete' : 'partial';
    return { ...record, status, warnings: [...record.warnings, LAST_ENTRY_LOST] };
  }

  /** The synthesis, or else every saved answer, each up to `maxChars` characters. */
  async texts(maxChars: number): Promise<{ record: RunRecord; texts: RunTexts }> {
    const record = structuredClone(this.effective());
    const answer = record.synthesis.file ? await this.readText(record.synthesis.file, maxChars) : undefined;
    const answers = new Map<number, string>();
    if (answer === undefined) {
      const names = new Set(await this.folder.list().catch(() => []));
      for (const [i, candidate] of record.candidates.entries()) {
        const file = savedAnswerFile(candidate, names, record.status === 'interrupted');
        const text = file && (await this.readText(file, maxChars));
        if (text === undefined || !file) continue;
        answers.set(i, text);
        if (candidate.status !== 'answered') record.candidates[i] = recovered(candidate, file, text);
      }
    }
    return { record, texts: { answer, answers, dir: this.folder.dir } };
  }

  /** A dead owner's journal is read again: its last entry may have landed, or a live process may have taken the run over. */
  async askOwner(): Promise<void> {
    const asked = new Set<string>();
    while (this.record.status === 'running') {
      asked.add(this.record.owner.instance);
      this.ownerAlive = await this.liveness.alive(this.record);
      if (this.ownerAlive) return;
      const again = await readRecord(this.folder, this.maxBytes);
      if (!again.ok) return;
      this.record = again.value;
      if (asked.has(this.record.owner.instance)) return;
    }
    this.ownerAlive = false;
  }

  /** Enough bytes for `maxChars` characters of UTF-8, and a few more. */
  readText(name: string, maxChars: number): Promise<string | undefined> {
    return this.folder.readStart(name, maxChars * 3 + 4).catch(() => undefined);
  }
}

const POLL_MS = 250;

interface Watch {
  run: StoredRun;
  record: RunRecord;
  version: number;
  changes: ChangeSignal;
  watchers: number;
  polling: boolean;
}

/** Runs of other processes, known from their folders; however many waiters follow one run, one poll loop reads its journal. */
export class StoredRuns {
  private readonly watches = new Map<string, Watch>();
  /** Requests within POLL_MS of each other share one read. */
  private readonly fresh = new Map<string, Promise<Result<StoredRun, LookupError>>>();

  constructor(
    private readonly store: RunStorage,
    readonly liveness: Liveness,
  ) {}

  /** Read now: for deciding what to pay for, nothing older will do. */
  async read(id: string, maxBytes = MAX_RECORD_BYTES): Promise<Result<StoredRun, LookupError>> {
    const folder = await this.store.openRun(id).catch(() => undefined);
    if (!folder) return err({ kind: 'not_found', message: `there is no such run in ${this.store.rootDir}` });
    const record = await readRecord(folder, maxBytes);
    if (!record.ok) return record;
    const run = new StoredRun(folder, record.value, this.liveness, maxBytes);
    await run.askOwner();
    return ok(run);
  }

  open(id: string): Promise<Result<StoredRun, LookupError>> {
    const watched = this.watches.get(id);
    if (watched) return Promise.resolve(ok(watched.run));
    const known = this.fresh.get(id);
    if (known) return known;
    const opened = this.read(id);
    this.fresh.set(id, opened);
    setTimeout(() => this.fresh.get(id) === opened && this.fresh.delete(id), POLL_MS).unref();
    return opened;
  }

  /** This process runs it now, or has just ended it, so what was read is out of date. */
  forget(id: string): void {
    this.fresh.delete(id);
  }

  /** A version counts the changes seen here. */
  async watch(
    id: string,
    since: number | undefined,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<Result<{ record: RunRecord; version: number }, LookupError>> {
    const watch = this.watches.get(id) ?? (await this.begin(id));
    if (!('run' in watch)) return watch;
    watch.watchers++;
    try {
      if (waitsForChange(since, watch.version, waitMs, STATUS[watch.record.status].settled)) {
        this.poll(watch);
        await changeWithin(watch.changes.wait(since), waitMs, signal);
      }
      return ok({ record: watch.record, version: watch.version });
    } finally {
      if (--watch.watchers === 0) this.watches.delete(id);
    }
  }

  private async begin(id: string): Promise<Watch | Result<never, LookupError>> {
    const opened = await this.open(id);
    if (!opened.ok) return opened;
    const raced = this.watches.get(id);
    if (raced) return raced;
    const watch: Watch = {
      run: opened.value,
      record: opened.value.effective(),
      version: 0,
      changes: new ChangeSignal(),
      watchers: 0,
      polling: false,
    };
    this.watches.set(id, watch);
    return watch;
  }

  private poll(watch: Watch): void {
    if (watch.polling) return;
    watch.polling = true;
    void (async () => {
      while (watch.watchers > 0 && !STATUS[watch.record.status].settled) {
        await sleep(POLL_MS);
        await this.reread(watch);
      }
      watch.polling = false;
    })();
  }

  private async reread(watch: Watch): Promise<void> {
    const record = await watch.run.refresh();
    if (record.updated_at === watch.record.updated_at && record.status === watch.record.status) return;
    watch.record = record;
    watch.version++;
    watch.changes.notify();
  }
}

/** An interrupted run may have written an answer file after its last journal entry. */
function savedAnswerFile(candidate: CandidateRecord, names: Set<string>, interrupted: boolean): string | undefined {
  if (candidate.status === 'answered' && candidate.file) return candidate.file;
  const file = candidateFile(candidate);
  return interrupted && names.has(file) ? file : undefined;
}

function recovered(candidate: CandidateRecord, file: string, text: string): CandidateRecord {
  return { index: candidate.index, model: candidate.model, status: 'answered', chars: text.length, file, recovered: true };
}
