import type { Logger } from 'pino';
import type pg from 'pg';
import type { Config } from '../config/config.js';
import type { OpenRouterClient } from '../openrouter/client.js';
import { priceCatalogFor } from '../openrouter/price-catalog.js';
import { createLimiter } from '../run/limiter.js';
import type { LocalRunService } from '../run/local.js';
import { localRuns } from '../run/local.js';
import type { Runs } from '../run/runs.js';
import type { CancelOutcome, RunService, StartOptions, StartOutcome, WatchOptions } from '../run/service.js';
import { requestOf, type RunRequest } from '../run/request.js';
import type { RunState } from '../run/record.js';
import type { RunStorage } from '../store/store.js';
import type { Team } from '../team/load.js';
import { memberRunStorage, type Member } from '../team/run-storage.js';
import { MemberBudget } from './budget.js';
import { CallGate } from './call-gate.js';
import type { Stops } from './stops.js';
import type { Drivable, RunEnd, TeamEngine } from './drive.js';

/** How long the workflow follows a run another process executes before it looks again. */
const FOLLOW_MS = 60_000;
/** How long a stop of a run another process executes waits for that run to end. */
const STOP_ELSEWHERE_MS = 5_000;

/**
 * Every member's runs in this process: one upstream client, one concurrency limit and one price
 * catalog shared, and per member their own store, their own requests (two members asking the
 * same make two runs) and their budget.
 */
export function teamRuns(config: Config, client: OpenRouterClient, logger: Logger, team: Team, pool: pg.Pool, stops: Stops) {
  const limiter = createLimiter(config.maxConcurrency);
  const prices = priceCatalogFor(client);
  const services = new Map<string, MemberRunService>();
  let engine: TeamEngine | undefined;
  const gate = new CallGate(config.apiKey);
  stops.subscribe((notice) => notice.kind === 'run' && services.get(notice.member)?.stopHere(notice.run, notice.reason));
  return {
    serviceFor(member: Member): MemberRunService {
      let service = services.get(member.id);
      if (!service) {
        const log = logger.child({ member: member.name });
        const budget = new MemberBudget(team, pool, member.id, log);
        // In the team database, always: any process then reads any run, and takes over one whose process died.
        const store = memberRunStorage(team, pool, member);
        const local = localRuns(config, client, log, {
          limiter,
          team: { store, prices, reserve: budget.reserve, member: member.id },
        });
        service = new MemberRunService(
          local,
          store,
          budget,
          gate,
          (run, reason) => stops.send({ kind: 'run', member: member.id, run, reason }),
          (run) => engine?.start(run, { member: { id: member.id, name: member.name }, run }) ?? Promise.resolve(),
        );
        services.set(member.id, service);
      }
      return service;
    },
    /** The engine the runs started here are recorded with, so another process carries them on if this one dies. */
    useEngine(started: TeamEngine): void {
      engine = started;
    },
    /** From now on a call that has not begun to start its run is refused, before any request: the process is stopping. */
    drain(): void {
      gate.drain();
    },
    /** Every call being started here has its run recorded with the engine (or was refused): a drain must wait for them first. */
    started: () => Promise.all([...services.values()].map((service) => service.started())).then(() => undefined),
    /** Runs executing here, across members. */
    running: () => [...services.values()].reduce((sum, service) => sum + service.running, 0),
    /** Every run executing here has ended and its cost is settled. */
    finished: () => Promise.all([...services.values()].map((service) => service.finished())).then(() => undefined),
    /** Runs still executing are journaled as interrupted, to be resumed; then the upstream connections close. */
    async close(): Promise<void> {
      await Promise.all([...services.values()].map((service) => service.close()));
      await client.close();
    },
  };
}

/**
 * A member's runs, with their budget held before each new run; each new or resumed run is
 * recorded as a workflow of the engine, which carries it to its end and settles its cost.
 */
class MemberRunService implements RunService, Drivable {
  readonly notice = undefined;
  private readonly runs: Runs;
  /** Starts in progress: a run may be going before its workflow is recorded. */
  private readonly starting = new Set<Promise<unknown>>();
  private readonly local: LocalRunService;

  constructor(
    { runs, service }: { runs: Runs; service: LocalRunService },
    /** Where the member's runs are kept, for the run page to read their answers. */
    readonly store: RunStorage,
    private readonly budget: MemberBudget,
    /** What a call must pass before anything of its run. */
    private readonly gate: CallGate,
    /** Asks every process to stop a run of this member's. */
    private readonly stopElsewhere: (run: string, reason: string) => Promise<void>,
    /** Records run `run`'s workflow with the engine. */
    private readonly startWorkflow: (run: string) => Promise<void>,
  ) {
    this.runs = runs;
    this.local = service;
  }

  get running(): number {
    return this.runs.running;
  }

  start(request: RunRequest, options?: StartOptions): Promise<StartOutcome> {
    const refused = this.gate.refusal(request);
    if (refused) return Promise.resolve({ refused });
    const starting = this.startRecorded(request, options);
    const done = starting.catch(() => undefined).finally(() => this.starting.delete(done));
    this.starting.add(done);
    return starting;
  }

  async started(): Promise<void> {
    while (this.starting.size > 0) await Promise.all(this.starting);
  }

  private async startRecorded(request: RunRequest, options?: StartOptions): Promise<StartOutcome> {
    let outcome: StartOutcome | undefined;
    try {
      outcome = await this.local.start(request, options);
    } finally {
      const started = outcome && !('refused' in outcome) && outcome.joined === 'new' ? outcome.id : undefined;
      await this.budget.startEnded(request, started);
    }
    if (!('refused' in outcome) && outcome.joined !== 'attached') await this.startWorkflow(outcome.id);
    return outcome;
  }

  /**
   * The workflow's step 'run': a run live here is awaited; one that is not (its process died) is
   * started again from its record, which resumes it through the claim, asking only the models
   * with no saved answer, or follows it where it is live. Ends with how the run ended.
   */
  async drive(id: string, signal: AbortSignal): Promise<RunEnd> {
    for (;;) {
      signal.throwIfAborted();
      const live = this.runs.liveRun(id);
      if (live) {
        await untilAborted(live.settled, signal);
        const state = live.state();
        // Stopped here to be resumed: this process is going, and the run goes on elsewhere.
        if (state.status === 'interrupted') await untilAborted(new Promise(() => undefined), signal);
        return endOf(state);
      }
      const found = await this.runs.stored?.watch(id, undefined, 0);
      if (!found?.ok) throw new Error(`run ${id} cannot be read: ${found ? found.error.message : 'runs are not saved'}`);
      const { record } = found.value;
      if (record.status !== 'running' && record.status !== 'interrupted') return endOf(record);
      const request = requestOf(record);
      if (this.runs.keyOf(request) !== record.request_key) throw new Error(`run ${id}'s request cannot be rebuilt from its record`);
      const started = await this.runs.start(request);
      if ('refused' in started) throw new Error(`run ${id} could not be taken over: refused (${started.refused.kind})`);
      const now = 'live' in started.run ? started.run.live.id : started.run.stored.id;
      // The request now leads to another run (a later call with fresh: true): this workflow carries only its own.
      if (now !== id) throw new Error(`run ${id} was not taken over: its request now leads to run ${now}`);
      if ('stored' in started.run) await this.local.watch(id, { waitMs: FOLLOW_MS, untilSettled: true, signal });
    }
  }

  /** After the run, in the workflow's step: the run's actual cost replaces its hold, once. */
  settle(id: string, end: RunEnd): Promise<void> {
    return this.budget.settle(id, end);
  }

  watch(id: string, options: WatchOptions) {
    return this.local.watch(id, options);
  }

  view(id: string, maxChars: number) {
    return this.local.view(id, maxChars);
  }

  cancel(id: string, reason: string): Promise<CancelOutcome> {
    return this.local.cancel(id, reason, () => this.stopThere(id, reason));
  }

  /** A run another process executes is stopped there: asked through the database, then waited for a moment. */
  private async stopThere(id: string, reason: string): Promise<CancelOutcome> {
    try {
      await this.stopElsewhere(id, reason);
    } catch {
      return {
        stopped: false,
        reason: `run ${id} is executed by another process, and the team database, which would tell it to stop, does not answer`,
      };
    }
    const ended = await this.local.watch(id, { waitMs: STOP_ELSEWHERE_MS, untilSettled: true });
    if (!ended.ok) return { stopped: false, reason: ended.error.message };
    const { status } = ended.value.state;
    if (status === 'cancelled') return { stopped: true };
    return {
      stopped: false,
      reason:
        status === 'running'
          ? `run ${id} is executed by another process, which was asked to stop it and has not yet`
          : `run ${id} is not running: it is ${status}`,
    };
  }

  /** A stop another process sent: taken if the run executes here. */
  stopHere(id: string, reason: string): void {
    if (this.runs.liveRun(id)?.status === 'running') void this.local.cancel(id, reason);
  }

  list(limit: number) {
    return this.local.list(limit);
  }

  /**
   * Not passed on: each HTTP request has a server of its own, and none keeps a stream open to
   * tell its client that the list of runs changed (GET /mcp is not served).
   */
  onStart(): void {}

  finished(): Promise<void> {
    return this.local.finished();
  }

  close(): Promise<void> {
    return this.runs.interruptAll();
  }
}

const endOf = (state: Pick<RunState, 'status' | 'totals'>): RunEnd => ({
  status: state.status,
  costUsd: state.totals.cost ?? 0,
  tokens: state.totals.total_tokens ?? 0,
});

/** `work`, or a rejection once `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
