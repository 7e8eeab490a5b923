import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { API_KEY_SHAPE } from '../api-key.js';
import { ok } from '../result.js';
import { LeaseKeeper } from '../store/leases.js';
import type { RunStore } from '../store/run-store.js';
import { admitter, type AdmissionDeps, type AdmittedResume } from './admission.js';
import { claimRequest, type Found } from './claiming.js';
import { buildRun, type RunMaking } from './build-run.js';
import { currentOwner, runningHere, type OwnerIdentity } from './liveness.js';
import { execute } from './orchestrate.js';
import { STATUS } from './record.js';
import type { StartRefusal } from './refusal.js';
import { REUSE_MS, reusable } from './reuse.js';
import { requestKey, type RunRequest } from './request.js';
import { Run } from './run.js';
import type { Joined, StartOptions } from './service.js';
import type { RunDeps } from './steps/context.js';
import { StoredRuns } from './stored-watch.js';
import type { StoredRun } from './stored.js';

/** How long a process stays for a journal the disk keeps refusing. */
const CATCH_UP_MS = 60 * 60 * 1000;

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

/** A request's run, or why none was started. */
export type Start = { run: Found; joined: Joined } | { refused: StartRefusal };

/**
 * Every run this process executes: it starts runs, returns the same run for the same request
 * rather than billing twice, and takes over (resumes) stopped and interrupted ones, asking only
 * the models that have no saved answer. Runs of other processes are found through `stored`.
 */
export class Runs {
  readonly owner: OwnerIdentity;
  readonly stored: StoredRuns | undefined;
  /** This process's runs while they run, and after as long as they are not whole on disk. */
  private readonly live = new Map<string, Run>();
  /** Runs that have not settled yet: shutdown waits for them. */
  private readonly unsettled = new Set<Run>();
  /** Runs that have settled while the disk refused their journal: it is tried again until it lands. */
  private readonly catchingUp = new Set<Run>();
  /** This process's latest run of each request, for as long as a finished run may be reused. */
  private readonly latestByKey = new Map<string, string>();
  /** Requests being looked up or started right now, by key. */
  private readonly starting = new Map<string, Promise<Start>>();
  private readonly startListeners = new Set<() => void>();

  /** Keeps this process's lease fresh while it runs runs, for processes that cannot ask the kernel about it. */
  private readonly lease: LeaseKeeper | undefined;
  private readonly admit: ReturnType<typeof admitter>;

  constructor(private readonly options: RunsOptions) {
    this.owner = currentOwner();
    this.stored = options.store && new StoredRuns(options.store);
    this.lease = options.store && new LeaseKeeper(options.store.leases, this.owner.instance);
    this.admit = admitter(options.admission, { stored: this.stored, live: (id) => this.live.get(id) }, options.deps.keepChars);
  }

  /** How many runs are executing here now, or ended with a journal still catching up with them: the process is needed. */
  get running(): number {
    return this.unsettled.size + this.catchingUp.size;
  }

  /**
   * The run of this request: a new one, its running or recent run, or its stopped run taken
   * over; or, before any upstream request, a refusal (see admission.ts). Joining costs nothing
   * and is never refused.
   */
  async start(request: RunRequest, { fresh = false, maxCostUsd }: StartOptions = {}): Promise<Start> {
    // A key pasted where a model id belongs would be written to the journal, file names and logs.
    if ([...request.models, ...request.synthesizers].some((id) => API_KEY_SHAPE.test(id) || this.options.redact(id) !== id)) {
      throw new TypeError(
        'a model id of the request is an API key: the key goes in OPENROUTER_API_KEY, model ids in models and synthesizer_model',
      );
    }
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
    await this.releaseLease();
  }

  /** Its process is ending with no run left: its lease goes now, not once it has lingered (see LeaseKeeper). */
  async releaseLease(): Promise<void> {
    await this.lease?.stop();
  }

  /** Settles when every run of this process has finished and written its journal. */
  async idle(): Promise<void> {
    while (this.unsettled.size > 0) await Promise.all([...this.unsettled].map((run) => run.settled));
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
    const context = store && this.stored && { store, stored: this.stored, owner: this.owner, liveRun: (id: string) => this.live.get(id) };
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
    const existing = claimed && { id: claimed.start, folder: claimed.folder };
    return { run: { live: this.launch(buildRun(this.making(), request, key, admitted.value, existing)) }, joined: 'new' };
  }

  /**
   * This process's latest run of the request, while it may be joined: in memory, or (once whole
   * on disk) in its folder, found so even when the request's claims cannot be read. A stopped
   * one is waited for, to be taken over through the claims.
   */
  private async mine(key: string): Promise<Found | undefined> {
    const id = this.latestByKey.get(key);
    const run = id ? this.live.get(id) : undefined;
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
  private resume(stored: StoredRun, request: RunRequest, admitted: AdmittedResume): Start {
    const saved = admitted.resumed;
    const run = buildRun(this.making(), request, saved.record.request_key, admitted, {
      id: saved.record.run_id,
      folder: Promise.resolve(stored.folder),
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
    this.live.set(run.id, run);
    this.stored?.forget(run.id);
    this.unsettled.add(run);
    runningHere(run.id, run.settled);
    this.lease?.hold(run.settled);
    this.latestByKey.set(run.key, run.id);
    void run.started();
    void execute(run, this.options.deps).catch((error: unknown) => {
      this.options.logger.error({ err: error, run: run.id }, 'a run failed unexpectedly');
      return run.abandon(`the run could not go on: ${(error as Error).message}`);
    });
    // A run whole on disk is found there once it ends; one that is not (saving off, or the disk
    // failed it) lives here while it can be reused.
    void run.settled.then(async () => {
      this.unsettled.delete(run);
      this.forgetLater(run.id, run.key);
      if (!run.onDisk && this.options.store) await this.catchUp(run);
      if (!run.onDisk) return;
      this.live.delete(run.id);
      this.stored?.forget(run.id);
    });
    for (const listener of this.startListeners) listener();
    return run;
  }

  /** A run whose end the disk refused: held here, and its process kept, until its journal has caught up (within a limit). */
  private async catchUp(run: Run): Promise<void> {
    this.catchingUp.add(run);
    const limit = new AbortController();
    await Promise.race([run.caughtUp(), sleep(CATCH_UP_MS, undefined, { signal: limit.signal, ref: false }).catch(() => undefined)]);
    limit.abort();
    this.catchingUp.delete(run);
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
