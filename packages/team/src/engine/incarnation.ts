import { setTimeout as sleep } from 'node:timers/promises';
import { reaching } from '../database.js';
import { underMigrationLock } from '../migrate.js';
import { TeamError } from '../errors.js';
import {
  cancelRun,
  dbosRunning,
  dbosStep,
  executorsWithRuns,
  launchDbos,
  migrateDbos,
  runOutcome,
  shutdownDbos,
  startRun,
  stopTaking,
  takeOver,
  type RunHost,
} from './dbos.js';
import { StepGate } from './gate.js';
import { Liveness, newExecutorId } from './liveness.js';
import type { DrainReport, EngineOptions, RunOutcome, RunSteps } from './types.js';
import { PeerWatchers } from './watchers.js';

/** The limits of the engine's own waits (each database statement has its own besides). */
const LIMITS = {
  /**
   * One wait on a peer's lock; a wait that reaches it is renewed at once. Short, because DBOS's
   * migrations create indexes CONCURRENTLY, which wait for every older statement in the database.
   */
  watchMs: 5_000,
  /** The pause before a watch whose connection failed connects again. */
  watchRetryMs: 1_000,
  /** Stopping DBOS: its loops end and its connections go back to the pool. */
  shutdownMs: 10_000,
  /** After a drain whose runs all ended here: DBOS writing down how the last of them ended (a write or two). */
  outcomesMs: 5_000,
} as const;

type State = 'running' | 'draining' | 'stopped' | 'fenced';

/** The engine's options, with the fence reported to the engine that restarts. */
export type Options<Input, Output> = Omit<EngineOptions<Input, Output>, 'onFenced'> & { onFenced: (error: TeamError) => void };

/**
 * One life of this process's engine under one executor id: DBOS's tables migrated under the
 * migration lock, the liveness lock taken, DBOS launched, and every peer (and every dead
 * process with unfinished runs) watched. It ends with a stop, a drain, or a fence (the
 * liveness connection lost), after which the id is never used again.
 */
export class Incarnation<Input, Output> implements RunHost {
  #state: State = 'running';
  /** Runs executing here now, starts of runs here still being recorded, runs ended here, and a wake-up for a drain waiting for the first two to end. */
  #running = 0;
  #starting = 0;
  #ended = 0;
  #idle: (() => void) | undefined;
  readonly #halted = new AbortController();
  readonly gate: StepGate;
  readonly watchers: PeerWatchers;
  readonly steps: RunSteps = {
    step: (name, work, retries) => dbosStep(name, (cancelled) => this.gate.pass(work, cancelled), retries),
    unsaved: (work) => this.gate.pass(work, undefined),
  };

  private constructor(
    private readonly options: Options<Input, Output>,
    private readonly liveness: Liveness,
  ) {
    this.gate = new StepGate(() => liveness.confirm());
    this.watchers = new PeerWatchers({
      url: options.databaseUrl,
      selfId: liveness.executorId,
      logger: options.logger,
      onGone: (peerId) => this.#takeOver(peerId),
      waitMs: LIMITS.watchMs,
      retryMs: LIMITS.watchRetryMs,
    });
  }

  static async open<Input, Output>(options: Options<Input, Output>): Promise<Incarnation<Input, Output>> {
    const { pool, databaseUrl: url, logger } = options;
    await underMigrationLock(pool, () => migrateDbos(pool, url, logger));
    // Liveness reports to the incarnation once it exists; a loss before that fails the start.
    let engine: Incarnation<Input, Output> | undefined;
    let lostEarly: Error | undefined;
    const liveness = await Liveness.hold(url, options.executorId ?? newExecutorId(), {
      onLost: (error) => {
        if (engine) engine.#fence(error);
        else lostEarly = error;
      },
      onPeer: (peerId) => engine?.watchers.watch(peerId),
    });
    engine = new Incarnation(options, liveness);
    try {
      await launchDbos({ pool, url, version: options.version, executorId: liveness.executorId, logger, runHost: engine });
      if (lostEarly) throw lostEarly;
      await liveness.announce();
      for (const peerId of await liveness.peers()) engine.watchers.watch(peerId);
      // A process that died while nobody watched it (the last one, say) left runs under its id: its lock is free, so watching it takes them over at once.
      for (const executorId of await executorsWithRuns(options.version)) engine.watchers.watch(executorId);
    } catch (error) {
      await engine.#halt('stopped', error as Error);
      throw error;
    }
    logger.info({ executor: liveness.executorId, version: options.version, peers: engine.watchers.watched }, 'engine: started');
    return engine;
  }

  get executorId(): string {
    return this.liveness.executorId;
  }

  /**
   * A run begins here, while draining too: the queue is no longer read then, so what begins is
   * a run this process started (its start recorded as the drain began), which the drain waits for.
   */
  begin() {
    if (this.ended) return undefined;
    this.#running++;
    return {
      run: (input: unknown) => this.options.run(input as Input, this.steps),
      working: () => !this.gate.closed,
      end: () => {
        this.#running--;
        this.#ended++;
        this.#wakeIfIdle();
      },
    };
  }

  async start(runId: string, input: Input): Promise<void> {
    this.#mustRun();
    // DBOS begins a run it records for this process before the start resolves: a start that ends has begun here, or runs elsewhere.
    this.#starting++;
    try {
      await reaching(this.options.databaseUrl, () => startRun(runId, input));
    } finally {
      this.#starting--;
      this.#wakeIfIdle();
    }
  }

  async result(runId: string, waitMs: number): Promise<RunOutcome<Output>> {
    this.#mustBeLaunched();
    return reaching(this.options.databaseUrl, () => runOutcome<Output>(runId, waitMs));
  }

  async cancel(runId: string): Promise<void> {
    this.#mustBeLaunched();
    await reaching(this.options.databaseUrl, () => cancelRun(runId));
  }

  async drain(limitMs: number): Promise<DrainReport> {
    if (this.#state !== 'running') return { finished: 0, handedOver: this.#running };
    this.#state = 'draining';
    const endedBefore = this.#ended;
    const waitFor = { runs: this.#running, starting: this.#starting };
    this.options.logger.info({ executor: this.executorId, ...waitFor, limitMs }, 'engine: draining');
    await this.watchers.close();
    await this.#bounded(stopTaking(), 'stop taking runs');
    if (this.#busy) {
      const idle = new Promise<void>((resolve) => (this.#idle = resolve));
      await Promise.race([idle, sleep(limitMs, undefined, { signal: this.#halted.signal }).catch(() => undefined)]);
    }
    const handedOver = this.#running + this.#starting;
    // A run's function has returned before DBOS records its outcome: when all ended here, that is waited for too, or a peer would take them over to record it.
    const outcomesMs = handedOver === 0 ? LIMITS.outcomesMs : 0;
    await this.#halt('stopped', new TeamError('engine_stopped', 'the engine stopped after draining'), outcomesMs);
    return { finished: this.#ended - endedBefore, handedOver };
  }

  /** Runs of this process's still executing or being started here: a drain waits for them. */
  get #busy(): boolean {
    return this.#running + this.#starting > 0;
  }

  #wakeIfIdle(): void {
    if (!this.#busy) this.#idle?.();
  }

  async stop(): Promise<void> {
    await this.#halt('stopped', new TeamError('engine_stopped', 'the engine stopped'));
  }

  /** A peer's lock was granted: it is gone, and its unfinished runs go to the queue that every live process takes from. */
  async #takeOver(peerId: string): Promise<void> {
    if (this.#state !== 'running') return;
    const runs = await takeOver(peerId);
    this.options.logger.info({ executor: this.executorId, peer: peerId, runs }, 'engine: a process is gone; its unfinished runs go on');
  }

  /** This process lost its lock: others are taking its runs over, so it stops working on them at once. */
  #fence(cause: Error): void {
    if (this.#state === 'stopped' || this.#state === 'fenced') return;
    const message = `the engine lost its liveness connection (${cause.message}); its runs go on elsewhere`;
    const error = new TeamError('engine_fenced', message, { cause });
    this.options.logger.error({ executor: this.executorId, err: cause.message }, 'engine: fenced');
    void this.#halt('fenced', error).then(() => this.options.onFenced(error));
  }

  /** Ends this incarnation; DBOS waits up to `outcomesMs` for the runs whose functions have returned to have their outcomes recorded. */
  async #halt(state: 'stopped' | 'fenced', reason: Error, outcomesMs = 0): Promise<void> {
    if (this.#halted.signal.aborted) return;
    this.#state = state;
    this.#halted.abort();
    this.gate.close(reason);
    await this.watchers.close();
    // DBOS first, so this process takes nothing back from the queue once its lock is let go.
    if (dbosRunning()) await this.#bounded(shutdownDbos(outcomesMs), 'shut DBOS down');
    await this.liveness.release();
    this.options.logger.info({ executor: this.executorId, state, runsLeft: this.#running }, 'engine: stopped');
  }

  async #bounded(work: Promise<void>, what: string): Promise<void> {
    const limit = new AbortController();
    const late = sleep(LIMITS.shutdownMs, 'late' as const, { signal: limit.signal });
    const outcome = await Promise.race([work.then(() => 'done' as const), late]).catch((error: Error) => error);
    limit.abort();
    if (outcome !== 'done')
      this.options.logger.warn({ err: outcome === 'late' ? 'time limit' : outcome.message }, `engine: could not ${what}`);
  }

  /** Whether this incarnation has ended (stopped, drained or fenced). */
  get ended(): boolean {
    return this.#halted.signal.aborted;
  }

  #mustRun(): void {
    if (this.#state !== 'running') throw this.#refusal();
  }

  #mustBeLaunched(): void {
    if (this.#state === 'stopped' || this.#state === 'fenced') throw this.#refusal();
  }

  #refusal(): TeamError {
    return new TeamError(
      this.#state === 'fenced' ? 'engine_fenced' : 'engine_stopped',
      `the engine is ${this.#state}: it takes no new run`,
    );
  }
}
