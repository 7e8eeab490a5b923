import { setTimeout as sleep } from 'node:timers/promises';
import { reaching } from '../database.js';
import { dbosRunning, loadDbos } from './dbos.js';
import { TeamError } from '../errors.js';
import { Incarnation, type Options } from './incarnation.js';
import type { DrainReport, Engine, EngineOptions, RunOutcome } from './types.js';

/** The pauses between attempts to start again after a fence: from the first to the longest. */
const RESTART_MS = { first: 1_000, longest: 10_000 } as const;

/** DBOS is one per process, so the engine is too: whether one is running now. */
let running = false;

/**
 * Starts this process's engine (an Incarnation) and keeps one going: when it is fenced (its
 * liveness connection lost, as in a database restart), its runs go on in other processes or in
 * the next incarnation, which this starts under a new executor id once the database answers
 * again. The database unreachable at start is a TeamError (database_down) within the pool's
 * connect limit.
 */
export async function startEngine<Input, Output>(options: EngineOptions<Input, Output>): Promise<Engine<Input, Output>> {
  if (running || dbosRunning()) throw new TeamError('engine_already_running', 'an engine is already running in this process');
  running = true;
  try {
    await loadDbos();
    const engine = new TeamEngine(options);
    await engine.begin();
    return engine;
  } catch (error) {
    running = false;
    throw error;
  }
}

class TeamEngine<Input, Output> implements Engine<Input, Output> {
  #current: Incarnation<Input, Output> | undefined;
  #lastId = '';
  readonly #closing = new AbortController();
  #restarted: Promise<void> = Promise.resolve();

  constructor(private readonly options: EngineOptions<Input, Output>) {}

  /** The first incarnation, under the executor id given if any. */
  async begin(): Promise<void> {
    await this.#open(this.options.executorId);
  }

  async #open(executorId: string | undefined): Promise<void> {
    const options: Options<Input, Output> = { ...this.options, executorId, onFenced: (error) => this.#fenced(error) };
    const incarnation = await reaching(this.options.databaseUrl, () => Incarnation.open(options));
    this.#current = incarnation;
    this.#lastId = incarnation.executorId;
  }

  get executorId(): string {
    return this.#lastId;
  }

  start(runId: string, input: Input): Promise<void> {
    return this.#live().start(runId, input);
  }

  result(runId: string, waitMs: number): Promise<RunOutcome<Output>> {
    return this.#live().result(runId, waitMs);
  }

  cancel(runId: string): Promise<void> {
    return this.#live().cancel(runId);
  }

  async drain(limitMs: number): Promise<DrainReport> {
    this.#closing.abort();
    await this.#restarted;
    const report = (await this.#current?.drain(limitMs)) ?? { finished: 0, handedOver: 0 };
    running = false;
    return report;
  }

  async stop(): Promise<void> {
    this.#closing.abort();
    await this.#restarted;
    await this.#current?.stop();
    running = false;
  }

  #live(): Incarnation<Input, Output> {
    if (this.#current && !this.#current.ended) return this.#current;
    if (this.#closing.signal.aborted) throw new TeamError('engine_stopped', 'the engine is stopped: it takes no new run');
    throw new TeamError('database_down', 'the engine lost the database and starts again once it answers');
  }

  #fenced(error: TeamError): void {
    this.#current = undefined;
    this.options.onFenced?.(error);
    if (!this.#closing.signal.aborted) this.#restarted = this.#restart();
  }

  /** Starts a new incarnation once the database answers again, trying less often the longer it does not. */
  async #restart(): Promise<void> {
    let pause: number = RESTART_MS.first;
    while (!this.#closing.signal.aborted) {
      const waited = await sleep(pause, true, { signal: this.#closing.signal }).catch(() => false);
      if (!waited) return;
      try {
        await this.#open(undefined);
        this.options.logger.info({ executor: this.executorId }, 'engine: started again after losing the database');
        if (this.#closing.signal.aborted) await this.#current?.stop();
        return;
      } catch (error) {
        this.options.logger.warn({ err: (error as Error).message }, 'engine: cannot start again yet');
        pause = Math.min(pause * 2, RESTART_MS.longest);
      }
    }
  }
}
