import path from 'node:path';
import type { Logger } from 'pino';
import { newRunId, type RunFolder, type RunStore } from '../store/run-store.js';
import { admit, type AdmissionDeps, type Admitted } from './admission.js';
import { readEarlierRun } from './earlier.js';
import { RunFiles } from './files.js';
import { execute } from './orchestrate.js';
import type { RunDeps } from './steps/context.js';
import { currentOwner, ownerAlive, runningHere } from './owner.js';
import { STATUS, type Owner, type RunRecord } from './record.js';
import type { StartRefusal } from './refusal.js';
import { requestKey, type RunRequest } from './request.js';
import { Run } from './run.js';
import type { Joined, StartOptions } from './service.js';
import { StoredRuns } from './stored-watch.js';
import type { StoredRun } from './stored.js';

/** The same request within this long of its run's end returns that run instead of paying again. */
const REUSE_MS = 10 * 60 * 1000;
/** A stopped run older than this is asked anew rather than resumed. */
const RESUME_WITHIN_MS = 24 * 60 * 60 * 1000;
/** Claims of one resumption tried before giving up: each earlier claimant must have died. */
const MAX_CLAIMS = 3;

export interface RunsOptions {
  deps: RunDeps;
  /** Undefined when saving is off: runs then live in this process only. */
  store: RunStore | undefined;
  /** Who is asked, and with which key (a hash of it): the same prompt sent elsewhere, or paid by another key, is another request. */
  upstream: string;
  logger: Logger;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
  /** What decides whether a run may start: prices and limits (see admission.ts). */
  admission: Omit<AdmissionDeps, 'earlierRun'>;
}

/** A run by id: this process's (live), or one known from its folder. */
export type Found = { live: Run } | { stored: StoredRun };

/** A request's run, or why none was started. */
export type Start = { run: Found; joined: Joined } | { refused: StartRefusal };

/**
 * Every run this process executes: it starts runs, returns the same run for the same request
 * rather than billing twice, and takes over (resumes) stopped and interrupted ones, asking only
 * the models that have no saved answer. Runs of other processes are found through `stored`.
 */
export class Runs {
  readonly owner: Owner;
  readonly stored: StoredRuns | undefined;
  /** This process's runs while they run, and after as long as they are not whole on disk. */
  private readonly live = new Map<string, Run>();
  /** Runs that have not settled yet: shutdown waits for them. */
  private readonly unsettled = new Set<Run>();
  /** This process's latest run of each request, for as long as a finished run may be reused. */
  private readonly latestByKey = new Map<string, string>();
  /** Requests being looked up or started right now, by key. */
  private readonly starting = new Map<string, Promise<Start>>();
  private readonly startListeners = new Set<() => void>();

  constructor(private readonly options: RunsOptions) {
    this.owner = currentOwner();
    this.stored = options.store && new StoredRuns(options.store, this.owner);
  }

  /** How many runs are executing here now. */
  get running(): number {
    return this.unsettled.size;
  }

  /**
   * The run of this request: a new one, its running or recent run, or its stopped run taken
   * over; or, before any upstream request, a refusal (see admission.ts). Joining costs nothing
   * and is never refused.
   */
  async start(request: RunRequest, { fresh = false, maxCostUsd }: StartOptions = {}): Promise<Start> {
    const key = requestKey(request, this.options.upstream);
    if (fresh) return this.startNew(request, key, maxCostUsd);
    // The same request twice at the same moment: the second joins what the first finds or starts.
    const starting = this.starting.get(key);
    if (starting) {
      const first = await starting;
      return 'refused' in first ? first : { run: first.run, joined: 'attached' };
    }
    const started = this.joinOrResume(key, request, maxCostUsd).then((found) => found ?? this.startNew(request, key, maxCostUsd));
    this.starting.set(key, started);
    try {
      return await started;
    } finally {
      this.starting.delete(key);
    }
  }

  /** This process's run by id, while it is in memory. */
  liveRun(id: string): Run | undefined {
    return this.live.get(id);
  }

  /** The ids of this process's runs in memory. */
  liveIds(): string[] {
    return [...this.live.keys()];
  }

  onStart(listener: () => void): void {
    this.startListeners.add(listener);
  }

  /** Its process is ending: every running run stops and is journaled as interrupted, for a later process to resume. */
  async interruptAll(reason = 'the process running it stopped'): Promise<void> {
    for (const run of this.live.values()) run.interrupt(reason);
    await this.idle();
  }

  /** Settles when every run of this process has finished and written its journal. */
  async idle(): Promise<void> {
    while (this.unsettled.size > 0) await Promise.all([...this.unsettled].map((run) => run.settled));
  }

  private async startNew(request: RunRequest, key: string, ceilingUsd: number | undefined): Promise<Start> {
    const admitted = await this.admit(request, ceilingUsd, []);
    if (!admitted.ok) return { refused: admitted.error };
    return { run: { live: this.launch(this.newRun(request, key, admitted.value)) }, joined: 'new' };
  }

  private admit(request: RunRequest, ceilingUsd: number | undefined, saved: number[]) {
    const { admission } = this.options;
    const earlierRun = (id: string) => readEarlierRun(id, { stored: this.stored, live: (liveId) => this.live.get(liveId) }, admission.maxPromptChars);
    return admit(request, ceilingUsd, saved, { ...admission, earlierRun });
  }

  /** The run this request already has: running or recently finished (joined), or stopped (resumed now). */
  private async joinOrResume(key: string, request: RunRequest, ceilingUsd: number | undefined): Promise<Start | undefined> {
    const liveId = this.latestByKey.get(key);
    let run = liveId ? this.live.get(liveId) : undefined;
    if (run && !run.stopping && this.reusable(run.state())) return { run: { live: run }, joined: 'attached' };
    if (run && (run.stopping || STATUS[run.status].resumable)) {
      // Stopped: once its last journal entry is written, it is resumed from its folder.
      await run.settled;
      run = this.live.get(run.id);
    }
    // The index names the request's newest run of any process; this process's last one (found
    // on disk once it has ended) stands in when the index cannot be read.
    const storedId = (await this.options.store?.readIndex(key).catch(() => undefined))?.trim() || (run ? undefined : liveId);
    if (!storedId || storedId === run?.id || !this.stored) return undefined;
    const opened = await this.stored.open(storedId);
    if (!opened.ok) return undefined;
    const stored = opened.value;
    const record = stored.effective();
    if (record.request_key !== key) return undefined;
    if (this.reusable(record)) return { run: { stored }, joined: 'attached' };
    if (STATUS[record.status].resumable && Date.now() - Date.parse(record.started_at) < RESUME_WITHIN_MS) return this.resume(stored, record, request, ceilingUsd);
    return undefined;
  }

  private reusable(record: Pick<RunRecord, 'status' | 'finished_at' | 'updated_at'>): boolean {
    if (!STATUS[record.status].reusable) return false;
    return record.status === 'running' || Date.now() - Date.parse(record.finished_at ?? record.updated_at) < REUSE_MS;
  }

  /**
   * Takes over a stopped run: only the models with no saved answer (or none that can be read
   * back) are asked again, once what that costs at worst is admitted. Of two processes resuming
   * it at once, the one that makes the claim file first does it; the other follows it like any
   * other process's run.
   */
  private async resume(stored: StoredRun, record: Readonly<RunRecord>, request: RunRequest, ceilingUsd: number | undefined): Promise<Start> {
    const { record: saved, texts } = await stored.texts(this.options.deps.keepChars);
    const admitted = await this.admit(request, ceilingUsd, [...texts.answers.keys()]);
    if (!admitted.ok) return { refused: admitted.error };
    if (!(await this.claim(stored, record.resumes + 1))) return { run: { stored }, joined: 'attached' };
    const candidates = saved.candidates.map((candidate, i) =>
      candidate.status === 'answered' && !texts.answers.has(i) ? { index: candidate.index, model: candidate.model, status: 'waiting' as const } : candidate,
    );
    const run = this.newRun(request, record.request_key, admitted.value, {
      id: record.run_id,
      folder: Promise.resolve(stored.folder),
      resumed: { record: { ...saved, candidates }, answers: new Map(texts.answers) },
    });
    this.options.logger.info({ run: run.id, was: record.status, waiting: run.waitingCandidates().length }, 'resuming a stopped run');
    return { run: { live: this.launch(run) }, joined: 'resumed' };
  }

  /**
   * Claims the right to resume a run, once per generation. A claim whose process died before
   * it resumed the run (it would have written the journal) does not block the next claimant.
   */
  private async claim({ id, folder }: StoredRun, generation: number): Promise<boolean> {
    for (let attempt = 1; attempt <= MAX_CLAIMS; attempt++) {
      const name = `resume-${generation}-${attempt}.claim`;
      const claim = { owner: this.owner, at: new Date().toISOString() };
      if (await folder.createExclusive(name, `${JSON.stringify(claim)}\n`).catch(() => false)) return true;
      const earlier = parseClaim(await folder.read(name, 4096).catch(() => undefined));
      if (!earlier || ownerAlive({ run_id: id, owner: earlier.owner, updated_at: earlier.at }, this.owner)) return false;
    }
    return false;
  }

  private newRun(
    request: RunRequest,
    key: string,
    admitted: Admitted,
    existing?: { id: string; folder: Promise<RunFolder>; resumed: { record: RunRecord; answers: Map<number, string> } },
  ): Run {
    const { store, logger } = this.options;
    const id = existing?.id ?? newRunId();
    let run: Run | undefined;
    const warn = (message: string) => run?.warn(message);
    const files = store && new RunFiles(path.join(store.rootDir, id), existing?.folder ?? this.makeFolder(store, id, warn), warn, logger);
    const { cost, earlier } = admitted;
    run = new Run({ id, key, request, owner: this.owner, files, redact: this.options.redact, resumed: existing?.resumed, cost, earlier });
    for (const warning of admitted.warnings) run.warn(warning);
    return run;
  }

  private makeFolder(store: RunStore, id: string, warn: (message: string) => void): Promise<RunFolder | undefined> {
    return store.createRun(id).catch((error: unknown) => {
      const message = `could not create a run folder in ${store.rootDir}: ${(error as Error).message}; answers are not saved`;
      warn(message);
      this.options.logger.error({ err: error }, message);
      return undefined;
    });
  }

  /** Starts the run and remembers it for its request while it runs and a while after. */
  private launch(run: Run): Run {
    this.live.set(run.id, run);
    this.unsettled.add(run);
    runningHere(run.id, run.settled);
    this.latestByKey.set(run.key, run.id);
    // Another process that finds the run by its request must find its journal too.
    void run
      .started()
      .then(() => this.options.store?.writeIndex(run.key, run.id))
      .catch(() => undefined);
    void execute(run, this.options.deps).catch((error: unknown) => {
      this.options.logger.error({ err: error, run: run.id }, 'a run failed unexpectedly');
    });
    // A run whole on disk is found there once it ends; one that is not (saving off, or the disk
    // failed it) lives here while it can be reused.
    void run.settled.then(() => {
      this.unsettled.delete(run);
      if (run.onDisk) this.live.delete(run.id);
      this.forgetLater(run.id, run.key);
    });
    for (const listener of this.startListeners) listener();
    return run;
  }

  /** Its own function, so that the timer's closure holds the id and key, and not the run (as a closure in `launch` would). */
  private forgetLater(id: string, key: string): void {
    setTimeout(() => this.forget(id, key), REUSE_MS).unref();
  }

  private forget(id: string, key: string): void {
    this.live.delete(id);
    if (this.latestByKey.get(key) === id) this.latestByKey.delete(key);
  }
}

function parseClaim(text: string | undefined): { owner: Owner; at: string } | undefined {
  try {
    const claim = JSON.parse(text ?? '') as { owner?: Owner; at?: string };
    return claim.owner && claim.at ? { owner: claim.owner, at: claim.at } : undefined;
  } catch {
    return undefined;
  }
}
