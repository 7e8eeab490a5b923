import path from 'node:path';
import type { Logger } from 'pino';
import { isRunId, newRunId, type RunFolder, type RunStore } from '../store/run-store.js';
import { RunFiles } from './files.js';
import { LiveHandle, type RunHandle } from './handle.js';
import { execute, type RunDeps } from './orchestrate.js';
import { currentOwner, ownerAlive, runningHere } from './owner.js';
import { FINISHED, type Owner, type RunRecord } from './record.js';
import { requestKey, type RunRequest } from './request.js';
import { Run } from './run.js';
import { StoredRun } from './stored.js';

/** The same request within this long of its run's end returns that run instead of paying again. */
const REUSE_MS = 10 * 60 * 1000;
/** An interrupted run older than this is asked anew rather than resumed. */
const RESUME_WITHIN_MS = 24 * 60 * 60 * 1000;
/** The largest run.json read to list a run. */
const LISTED_RECORD_BYTES = 2 * 1024 * 1024;
/** Claims of one resumption tried before giving up: each earlier claimant must have died. */
const MAX_CLAIMS = 3;

export interface RunsOptions {
  deps: RunDeps;
  /** Undefined when saving is off: runs then live in this process only. */
  store: RunStore | undefined;
  /** The upstream base URL: the same prompt sent elsewhere is another request. */
  upstream: string;
  logger: Logger;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
}

/** How a request met its run: a new one, one already there, or an interrupted one taken over. */
export type Joined = 'new' | 'attached' | 'resumed';

/**
 * Every run this process knows: it starts runs, finds them by id (its own, or on disk from
 * other processes and earlier lives), returns the same run for the same request rather than
 * billing twice, and resumes interrupted ones.
 */
export class Runs {
  readonly owner: Owner;
  /** This process's runs while they run, and after as long as they are not whole on disk. */
  private readonly live = new Map<string, Run>();
  /** Runs that have not settled yet: shutdown waits for them. */
  private readonly unsettled = new Set<Run>();
  /** This process's latest run of each request, for as long as a finished run may be reused. */
  private readonly latestByKey = new Map<string, string>();
  /** Requests being looked up or started right now, by key. */
  private readonly starting = new Map<string, Promise<{ handle: RunHandle; joined: Joined }>>();
  private readonly startListeners = new Set<() => void>();

  constructor(private readonly options: RunsOptions) {
    this.owner = currentOwner();
  }

  async start(request: RunRequest, { fresh = false } = {}): Promise<{ handle: RunHandle; joined: Joined }> {
    const key = requestKey(request, this.options.upstream);
    if (fresh) return { handle: new LiveHandle(this.launch(this.newRun(request, key))), joined: 'new' };
    // The same request twice at the same moment: the second waits for the first's lookup, and
    // joins its run through a handle of its own (a handle remembers what its reader has seen).
    const starting = this.starting.get(key);
    if (starting) return { handle: anotherReader((await starting).handle), joined: 'attached' };
    const started = this.joinOrResume(key, request).then((joined) => joined ?? { handle: new LiveHandle(this.launch(this.newRun(request, key))), joined: 'new' as const });
    this.starting.set(key, started);
    try {
      return await started;
    } finally {
      this.starting.delete(key);
    }
  }

  /** A run by id: undefined for an id that is not one of ours, or a run that is not there. */
  async find(id: string): Promise<RunHandle | undefined> {
    if (!isRunId(id)) return undefined;
    const run = this.live.get(id);
    if (run) return new LiveHandle(run);
    return this.options.store && StoredRun.open(this.options.store, id, this.owner);
  }

  /**
   * The newest runs, this process's and those on disk, newest first, each with its record when
   * that is small enough to read for a list (a huge prompt makes a huge run.json).
   */
  async recent(limit: number): Promise<Array<{ id: string; record: Readonly<RunRecord> | undefined }>> {
    const ids = [...new Set([...this.live.keys(), ...((await this.options.store?.listRuns(limit).catch(() => [])) ?? [])])].sort().reverse().slice(0, limit);
    return Promise.all(ids.map(async (id) => ({ id, record: await this.listed(id) })));
  }

  private async listed(id: string): Promise<Readonly<RunRecord> | undefined> {
    const run = this.live.get(id);
    if (run) return run.view().record;
    const stored = this.options.store && (await StoredRun.open(this.options.store, id, this.owner, LISTED_RECORD_BYTES));
    return stored?.current();
  }

  onStart(listener: () => void): void {
    this.startListeners.add(listener);
  }

  /** Shutdown: every running run stops and is journaled as interrupted, for a later process to resume. */
  async interruptAll(): Promise<void> {
    for (const run of this.live.values()) run.interrupt();
    await this.idle();
  }

  /** Settles when every run of this process has finished and written its journal. */
  async idle(): Promise<void> {
    while (this.unsettled.size > 0) await Promise.all([...this.unsettled].map((run) => run.settled));
  }

  /** The run this request already has: running or recently finished (joined), or interrupted (resumed now). */
  private async joinOrResume(key: string, request: RunRequest): Promise<{ handle: RunHandle; joined: Joined } | undefined> {
    const liveId = this.latestByKey.get(key);
    const run = liveId ? this.live.get(liveId) : undefined;
    if (run && this.reusable(run.view().record)) return { handle: new LiveHandle(run), joined: 'attached' };
    // The index names the request's newest run of any process; this process's last one (found
    // on disk once it has ended) stands in when the index cannot be read.
    const storedId = (await this.options.store?.readIndex(key).catch(() => undefined))?.trim() || (run ? undefined : liveId);
    if (!storedId || storedId === run?.id) return undefined;
    const stored = await this.find(storedId);
    const record = await stored?.current();
    if (!stored || !record || record.request_key !== key) return undefined;
    if (this.reusable(record)) return { handle: stored, joined: 'attached' };
    if (record.status === 'interrupted' && stored instanceof StoredRun && Date.now() - Date.parse(record.started_at) < RESUME_WITHIN_MS) {
      return this.resume(stored, record, request);
    }
    return undefined;
  }

  private reusable(record: Readonly<RunRecord>): boolean {
    if (record.status === 'running') return true;
    if (!FINISHED.has(record.status) || record.status === 'failed' || record.status === 'cancelled') return false;
    return Date.now() - Date.parse(record.finished_at ?? record.updated_at) < REUSE_MS;
  }

  /**
   * Takes over an interrupted run: only the models with no saved answer (or none that can be
   * read back) are asked again. Of two processes resuming it at once, the one that makes the
   * claim file first does it; the other waits on it like any other process's run.
   */
  private async resume(stored: StoredRun, record: Readonly<RunRecord>, request: RunRequest): Promise<{ handle: RunHandle; joined: Joined }> {
    if (!(await this.claim(stored, record.resumes + 1))) return { handle: stored, joined: 'attached' };
    const view = await stored.view(this.options.deps.keepChars);
    const candidates = view.record.candidates.map((candidate, i) =>
      candidate.status === 'answered' && !view.answers.has(i) ? { index: candidate.index, model: candidate.model, status: 'waiting' as const } : candidate,
    );
    const run = this.newRun(request, record.request_key, {
      id: record.run_id,
      folder: Promise.resolve(stored.folder),
      resumed: { record: { ...view.record, candidates }, answers: new Map(view.answers) },
    });
    this.options.logger.info({ run: run.id, waiting: run.waitingCandidates().length }, 'resuming an interrupted run');
    return { handle: new LiveHandle(this.launch(run)), joined: 'resumed' };
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
    existing?: { id: string; folder: Promise<RunFolder>; resumed: { record: RunRecord; answers: Map<number, string> } },
  ): Run {
    const { store, logger } = this.options;
    const id = existing?.id ?? newRunId();
    let run: Run | undefined;
    const files = store && new RunFiles(path.join(store.rootDir, id), existing?.folder ?? this.makeFolder(store, id, (message) => run?.warn(message)), (message) => run?.warn(message), logger);
    run = new Run({ id, key, request, owner: this.owner, files, redact: this.options.redact, resumed: existing?.resumed });
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

function anotherReader(handle: RunHandle): RunHandle {
  return handle instanceof LiveHandle ? new LiveHandle(handle.run) : handle;
}
