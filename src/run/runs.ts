import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ok } from '../result.js';
import type { Lease, RunStorage } from '../store/store.js';
import { admitter, type AdmissionDeps, type AdmittedResume } from './admission.js';
import { claimRequest, type Found } from './claiming.js';
import { buildRun, type RunMaking } from './build-run.js';
import { Liveness, type OwnerIdentity } from './liveness.js';
import { execute } from './orchestrate.js';
import { STATUS } from './record.js';
import type { StartRefusal } from './start-refusal.js';
import { REUSE_MS, reusable } from './reuse.js';
import { refuseKeyAsModel, requestKey, type RunRequest } from './request.js';
import type { Run } from './run.js';
import type { Joined, StartOptions } from './service.js';
import type { RunDeps } from './steps/context.js';
import { StoredRuns } from './stored-runs.js';
import type { StoredRun } from './stored.js';

/** How long a process stays for a journal the disk keeps refusing. */
const CATCH_UP_MS = 60 * 60 * 1000;

export interface RunsOptions {
  deps: RunDeps;
  /** Undefined when saving is off: runs then live in this process only. */
  store: RunStorage | undefined;
  /** Who is asked, and with which key (a hash of it): the same prompt sent elsewhere, or paid by another key, is another request. */
  upstream: string;
  logger: Logger;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
  /** What decides whether a run may start: prices and limits (see admission.ts). */
  admission: Omit<AdmissionDeps, 'earlierRun'>;
}

/** A request's run, or why none was started. */
export type Start = { run: Found; joined: Joined } | { refused: StartRefusal };

/**
 * Where a run of this process stands: running; ended with its journal still catching up with a
 * disk that refused it; ended and held in memory (not whole on disk) while it may be reused;
 * ended and whole on disk, where it is found (only its id and request are remembered here).
 */
type Phase = 'running' | 'catching_up' | 'held' | 'on_disk';

interface Entry {
  key: string;
  phase: Phase;
  /** Let go once the run is whole on disk. */
  run: Run | undefined;
}

/**
 * Every run this process executes: it starts runs, returns the same run for the same request
 * rather than billing twice, and takes over (resumes) stopped and interrupted ones, asking only
 * the models that have no saved answer. Runs of other processes are found through `stored`.
 */
export class Runs {
  readonly owner: OwnerIdentity;
  readonly liveness: Liveness;
  readonly stored: StoredRuns | undefined;
  /** This process's runs, one entry each, kept while a finished run may be reused; the latest of a request last. */
  private readonly entries = new Map<string, Entry>();
  /** Requests being looked up or started right now, by key. */
  private readonly starting = new Map<string, Promise<Start>>();
  private readonly startListeners = new Set<() => void>();
  /** Keeps this process's lease fresh while it runs runs, for processes that cannot ask the kernel about it. */
  private readonly lease: Lease | undefined;
  private readonly admit: ReturnType<typeof admitter>;

  constructor(private readonly options: RunsOptions) {
    this.liveness = new Liveness(options.store);
    this.owner = this.liveness.newOwner();
    this.stored = options.store && new StoredRuns(options.store, this.liveness);
    this.lease = options.store?.lease(this.owner.instance);
    this.admit = admitter(options.admission, { stored: this.stored, live: (id) => this.liveRun(id) }, options.deps.keepChars);
  }

  /** How many runs are executing here now, or ended with a journal still catching up with them: the process is needed. */
  get running(): number {
    return [...this.entries.values()].filter((entry) => entry.phase === 'running' || entry.phase === 'catching_up').length;
  }

  /**
   * The run of this request: a new one, its running or recent run, or its stopped run taken
   * over; or, before any upstream request, a refusal (see admission.ts). Joining costs nothing
   * and is never refused.
   */
  async start(request: RunRequest, { fresh = false, maxCostUsd }: StartOptions = {}): Promise<Start> {
    refuseKeyAsModel(request, this.options.redact);
    const key = requestKey(request, this.options.upstream);
    // The same request twice at the same moment: the second joins what the first finds or starts.
    const starting = fresh ? undefined : this.starting.get(key);
    if (starting) {
      const first = await starting;
      return 'refused' in first ? first : { run: first.run, joined: 'attached' };
    }
    const started = this.findOrStart(key, request, fresh, maxCostUsd);
    this.starting.set(key, started);
    try {
      return await started;
    } finally {
      this.starting.delete(key);
    }
  }

  /** This process's run by id, while it is in memory. */
  liveRun(id: string): Run | undefined {
    return this.entries.get(id)?.run;
  }

  liveIds(): string[] {
    return [...this.entries].flatMap(([id, entry]) => (entry.run ? [id] : []));
  }

  onStart(listener: () => void): void {
    this.startListeners.add(listener);
  }

  /** Its process is ending: every running run stops and is journaled as interrupted, for a later process to resume. */
  async interruptAll(reason = 'the process running it stopped'): Promise<void> {
    for (const entry of this.entries.values()) entry.run?.interrupt(reason);
    await this.idle();
    await this.releaseLease();
  }

  /** Its process is ending with no run left: its lease goes now, not once it has lingered. */
  async releaseLease(): Promise<void> {
    await this.lease?.stop();
  }

  /** Settles when every run of this process has finished and written its journal. */
  async idle(): Promise<void> {
    const running = () => [...this.entries.values()].filter((entry) => entry.phase === 'running');
    while (running().length > 0) await Promise.all(running().map((entry) => entry.run?.settled));
  }

  /**
   * The run this request already has, or a new one: this process's own latest run of it is
   * joined (or, stopped, waited for and taken over); otherwise the request is claimed in the
   * store, and the claim says what to do. A new or resumed run is admitted first (see
   * admission.ts), a joined one never needs to be. Where the store cannot be used for claims,
   * the run goes on here all the same (and says why it is not saved).
   */
  private async findOrStart(key: string, request: RunRequest, fresh: boolean, ceilingUsd: number | undefined): Promise<Start> {
    const mine = fresh ? undefined : await this.mine(key);
    if (mine) return { run: mine, joined: 'attached' };
    const { store, logger } = this.options;
    const context = store && this.stored && { store, stored: this.stored, owner: this.owner, liveRun: (id: string) => this.liveRun(id) };
    const admitting = {
      fresh: () => this.admit.fresh(request, ceilingUsd),
      resume: (stopped: StoredRun) => this.admit.resume(request, ceilingUsd, stopped),
    };
    const claimed = context
      ? await claimRequest(key, context, fresh, admitting).catch((error: unknown) => {
          logger.warn({ err: error }, 'the request could not be claimed in the output folder');
          return undefined;
        })
      : undefined;
    if (claimed && 'refused' in claimed) return claimed;
    if (claimed && 'follow' in claimed) return { run: claimed.follow, joined: 'attached' };
    if (claimed && 'resume' in claimed) return this.resume(claimed.resume, request, claimed.admitted);
    // Started under a claim, or (no claim to be had) here all the same.
    const admitted = claimed ? ok(claimed.admitted) : await admitting.fresh();
    if (!admitted.ok) return { refused: admitted.error };
    const run = await buildRun(this.making(), request, key, admitted.value, claimed && { id: claimed.start, place: claimed.place });
    return { run: { live: this.launch(run) }, joined: 'new' };
  }

  /**
   * This process's latest run of the request, while it may be joined: in memory, or (once whole
   * on disk) in its folder, found so even when the request's claims cannot be read. A stopped
   * one is waited for, to be taken over through the claims.
   */
  private async mine(key: string): Promise<Found | undefined> {
    const [id, entry] = [...this.entries].findLast(([, entry]) => entry.key === key) ?? [];
    const run = entry?.run;
    if (run && !run.stopping && reusable(run.state())) return { live: run };
    if (run) {
      if (run.stopping || STATUS[run.status].resumable) await run.settled;
      return undefined;
    }
    const opened = id && this.stored ? await this.stored.read(id) : undefined;
    return opened?.ok && reusable(opened.value.effective()) ? { stored: opened.value } : undefined;
  }

  /**
   * Takes over a stopped run, its claim won: only the models with no saved answer (or none
   * that can be read back) are asked again. Its admission read what it saved (admission.ts).
   */
  private async resume(stored: StoredRun, request: RunRequest, admitted: AdmittedResume): Promise<Start> {
    const saved = admitted.resumed;
    const run = await buildRun(this.making(), request, saved.record.request_key, admitted, {
      id: saved.record.run_id,
      place: stored.folder,
      resumed: saved,
    });
    this.options.logger.info({ run: run.id, was: saved.record.status, waiting: run.waitingCandidates().length }, 'resuming a stopped run');
    return { run: { live: this.launch(run) }, joined: 'resumed' };
  }

  private making(): RunMaking {
    const { store, logger, redact } = this.options;
    return { store, logger, redact, owner: this.owner };
  }

  /** Starts the run and remembers it for its request while it runs and a while after. */
  private launch(run: Run): Run {
    const entry: Entry = { key: run.key, phase: 'running', run };
    // Re-entered, so that the latest run of a request is the last entry.
    this.entries.delete(run.id);
    this.entries.set(run.id, entry);
    this.stored?.forget(run.id);
    this.liveness.runningHere(run.id, run.settled);
    this.lease?.hold(run.settled);
    void run.started();
    void execute(run, this.options.deps).catch((error: unknown) => {
      this.options.logger.error({ err: error, run: run.id }, 'a run failed unexpectedly');
      return run.abandon(`the run could not go on: ${(error as Error).message}`);
    });
    void run.settled.then(() => this.ended(run.id, entry));
    for (const listener of this.startListeners) listener();
    return run;
  }

  /**
   * A run whole on disk is found there once it ends; one that is not (saving off, or the disk
   * failed it) is held here while it can be reused, its journal tried again meanwhile.
   */
  private async ended(id: string, entry: Entry): Promise<void> {
    this.forgetLater(id, entry);
    const run = entry.run!;
    if (!run.onDisk && this.options.store) {
      // Its end refused by the disk: held, and its process kept, until its journal has caught up (within a limit).
      entry.phase = 'catching_up';
      const limit = new AbortController();
      await Promise.race([run.caughtUp(), sleep(CATCH_UP_MS, undefined, { signal: limit.signal, ref: false }).catch(() => undefined)]);
      limit.abort();
    }
    entry.phase = run.onDisk ? 'on_disk' : 'held';
    if (!run.onDisk) return;
    entry.run = undefined;
    this.stored?.forget(id);
  }

  /** Its own function, so that the timer's closure holds the entry, and not the run (as a closure in `launch` would). */
  private forgetLater(id: string, entry: Entry): void {
    setTimeout(() => this.entries.get(id) === entry && this.entries.delete(id), REUSE_MS).unref();
  }
}
