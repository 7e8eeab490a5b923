import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ok } from '../result.js';
import { newRunId, type Lease, type RunPlace, type RunStorage } from '../store/store.js';
import { admitter, type AdmissionDeps, type Admitted } from './admission.js';
import { REUSE_MS, claimRequest, reusable, type Found } from './claiming.js';
import { Liveness } from './liveness.js';
import { execute } from './orchestrate.js';
import { STATUS, type Owner } from './record.js';
import type { StartRefusal } from './start-refusal.js';
import { refuseKeyAsModel, requestKey, type RunRequest } from './request.js';
import type { SavedRun } from './new-record.js';
import { Run } from './run.js';
import type { Joined, StartOptions } from './service.js';
import type { RunDeps } from './steps/context.js';
import { StoredRuns } from './stored.js';

/** How long a process stays for a journal the disk keeps refusing. */
const CATCH_UP_MS = 60 * 60 * 1000;

interface RunsOptions {
  deps: RunDeps;
  /** Undefined when saving is off: runs then live in this process only. */
  store: RunStorage | undefined;
  /** Who is asked, and with which key's hash: the same prompt sent elsewhere or paid by another key is another request. */
  upstream: string;
  logger: Logger;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
  admission: Omit<AdmissionDeps, 'earlierRun'>;
}

/** A request's run, or why none was started. */
export type Start = { run: Found; joined: Joined } | { refused: StartRefusal };

/** Ended runs are held in memory while their journal catches up with a refusing disk, or while reusable and not whole on disk. */
type Phase = 'running' | 'catching_up' | 'held' | 'on_disk';

interface Entry {
  key: string;
  phase: Phase;
  /** Let go once the run is whole on disk. */
  run: Run | undefined;
}

/** Every run this process executes: the same request gets the same run rather than paying twice, and stopped runs are resumed. */
export class Runs {
  readonly owner: Owner;
  readonly liveness: Liveness;
  readonly stored: StoredRuns | undefined;
  /** Kept while a finished run may be reused; the latest run of a request is last. */
  private readonly entries = new Map<string, Entry>();
  private readonly starting = new Map<string, Promise<Start>>();
  private readonly startListeners = new Set<() => void>();
  /** Kept fresh while runs run, for processes that cannot ask the kernel about liveness. */
  private readonly lease: Lease | undefined;
  private readonly admit: ReturnType<typeof admitter>;

  constructor(private readonly options: RunsOptions) {
    this.liveness = new Liveness(options.store);
    this.owner = this.liveness.newOwner();
    this.stored = options.store && new StoredRuns(options.store, this.liveness);
    this.lease = options.store?.lease(this.owner.instance);
    this.admit = admitter(options.admission, { stored: this.stored, live: (id) => this.liveRun(id) }, options.deps.keepChars);
  }

  /** Runs that still need this process: executing, or with a journal catching up. */
  get running(): number {
    return [...this.entries.values()].filter((entry) => entry.phase === 'running' || entry.phase === 'catching_up').length;
  }

  /** Joining an existing run costs nothing and is never refused; a new or resumed one may be. */
  async start(request: RunRequest, { fresh = false, maxCostUsd }: StartOptions = {}): Promise<Start> {
    refuseKeyAsModel(request, this.options.redact);
    const key = this.keyOf(request);
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

  /** The key `request` is claimed under here: a run's record tells whether a request rebuilt from it is the same. */
  keyOf(request: RunRequest): string {
    return requestKey(request, this.options.upstream);
  }

  liveRun(id: string): Run | undefined {
    return this.entries.get(id)?.run;
  }

  liveIds(): string[] {
    return [...this.entries].flatMap(([id, entry]) => (entry.run ? [id] : []));
  }

  onStart(listener: () => void): void {
    this.startListeners.add(listener);
  }

  /** Running runs are journaled as interrupted, for a later process to resume. */
  async interruptAll(reason = 'the process running it stopped'): Promise<void> {
    for (const entry of this.entries.values()) entry.run?.stop('interrupted', reason);
    await this.idle();
    await this.releaseLease();
  }

  async releaseLease(): Promise<void> {
    await this.lease?.stop();
  }

  async idle(): Promise<void> {
    const running = () => [...this.entries.values()].filter((entry) => entry.phase === 'running');
    while (running().length > 0) await Promise.all(running().map((entry) => entry.run?.settled));
  }

  /** When the store cannot take claims, the run goes on here all the same, unsaved. */
  private async findOrStart(key: string, request: RunRequest, fresh: boolean, ceilingUsd: number | undefined): Promise<Start> {
    const mine = fresh ? undefined : await this.mine(key);
    if (mine) return { run: mine, joined: 'attached' };
    const { store, logger } = this.options;
    const admit = this.admit(request, ceilingUsd);
    const context = store && this.stored && { store, stored: this.stored, owner: this.owner, liveRun: (id: string) => this.liveRun(id) };
    const claimed = context
      ? await claimRequest(key, context, fresh, admit).catch((error: unknown) => {
          logger.warn({ err: error }, 'the request could not be claimed in the output folder');
          return undefined;
        })
      : undefined;
    if (claimed && 'refused' in claimed) return claimed;
    if (claimed && 'follow' in claimed) return { run: claimed.follow, joined: 'attached' };
    if (claimed && 'resume' in claimed) {
      // Only the models with no saved answer that can be read back are asked again.
      const { resumed } = claimed.admitted;
      const run = await this.launch(request, key, claimed.admitted, { id: resumed.record.run_id, place: claimed.resume.folder, resumed });
      logger.info({ run: run.id, was: resumed.record.status, waiting: run.waitingCandidates().length }, 'resuming a stopped run');
      return { run: { live: run }, joined: 'resumed' };
    }
    // Started under a claim, or (no claim to be had) here all the same.
    const id = claimed?.start ?? newRunId();
    const admitted = claimed ? ok(claimed.admitted) : await admit.fresh(id);
    if (!admitted.ok) return { refused: admitted.error };
    return { run: { live: await this.launch(request, key, admitted.value, { id, place: claimed?.place }) }, joined: 'new' };
  }

  /** Read from its folder once whole on disk, so it is found even when the claims cannot be read; a stopped one is waited for. */
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

  /** A place that cannot be made costs the run only a warning: its answers are then not saved. */
  private async launch(
    request: RunRequest,
    key: string,
    admitted: Admitted,
    at: { id: string; place?: RunPlace; resumed?: SavedRun },
  ): Promise<Run> {
    const { store, logger, redact } = this.options;
    const warnings = [...admitted.warnings];
    const place =
      at.place ??
      (await store?.createRun(at.id).catch((error: unknown) => {
        const message = `could not create a run folder in ${store.rootDir}: ${(error as Error).message}; answers are not saved`;
        warnings.push(message);
        logger.error({ err: error }, message);
        return undefined;
      }));
    const { cost, earlier } = admitted;
    const run = new Run({ ...at, place, key, request, owner: this.owner, log: logger, redact, cost, earlier });
    for (const warning of warnings) run.warn(warning);
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

  /** A run not whole on disk is held here while reusable, its journal retried meanwhile. */
  private async ended(id: string, entry: Entry): Promise<void> {
    this.forgetLater(id, entry);
    const run = entry.run!;
    if (!run.onDisk && this.options.store) {
      // The process is kept until its journal catches up, within a limit.
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

  /** Its own function, so the timer's closure holds the entry and not the run. */
  private forgetLater(id: string, entry: Entry): void {
    setTimeout(() => this.entries.get(id) === entry && this.entries.delete(id), REUSE_MS).unref();
  }
}
