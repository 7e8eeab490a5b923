/**
 * Everything the engine asks of DBOS Transact, in one place. Four calls come from DBOS's
 * internal exports (`@dbos-inc/dbos-sdk/internal/*`), which is why the version is pinned exactly
 * and tested: recoverPendingWorkflows for a given executor (what DBOS's hosted Conductor calls
 * when a process dies), deactivateEventReceivers (stop taking runs from the queue, without
 * shutting down), its schema migration run on our pool with our logger, and
 * runWithAbortableDbRetries (a limit on how long a call retries a database that is down).
 */
import type { DBOS as DBOSClass, DLogger } from '@dbos-inc/dbos-sdk';
import type { GlobalLogger } from '@dbos-inc/dbos-sdk/internal/telemetry/logs';
import type pg from 'pg';
import type { EngineLogger, RunOutcome, StepRetries } from './types.js';

interface Sdk {
  DBOS: typeof DBOSClass;
  getExecutor: typeof import('@dbos-inc/dbos-sdk/internal/dbos').getExecutor;
  ensureSystemDatabase: typeof import('@dbos-inc/dbos-sdk/internal/system_database').ensureSystemDatabase;
  runWithAbortableDbRetries: typeof import('@dbos-inc/dbos-sdk/internal/context').runWithAbortableDbRetries;
}
let sdk: Sdk | undefined;

/**
 * Loads DBOS, which takes a good part of a second: only a process that starts the engine pays
 * for it, not `users` or `usage`, which load the same package.
 */
export async function loadDbos(): Promise<void> {
  if (sdk) return;
  const [main, internal, systemDatabase, context] = await Promise.all([
    import('@dbos-inc/dbos-sdk'),
    import('@dbos-inc/dbos-sdk/internal/dbos'),
    import('@dbos-inc/dbos-sdk/internal/system_database'),
    import('@dbos-inc/dbos-sdk/internal/context'),
  ]);
  sdk = {
    DBOS: main.DBOS,
    getExecutor: internal.getExecutor,
    ensureSystemDatabase: systemDatabase.ensureSystemDatabase,
    runWithAbortableDbRetries: context.runWithAbortableDbRetries,
  };
}

/** DBOS, loaded by startEngine before any other call here. */
function loaded(): Sdk {
  if (!sdk) throw new Error('DBOS is not loaded: loadDbos() first');
  return sdk;
}

/** DBOS's name for this application: it scopes our workflows in its tables. */
const APP = 'parallel-llm-mcp';
/** A run that keeps killing the processes that take it over is given up after this many takeovers. */
const MAX_TAKEOVERS = 20;

/** What a run's workflow asks of the engine that hosts it as it begins here. */
export interface RunHost {
  /**
   * The run function bound to this engine, and a call for when it ends; undefined when this
   * engine executes no more runs (draining or stopped), and the run is left for another process.
   */
  begin(): { run: (input: unknown) => Promise<unknown>; working: () => boolean; end: () => void } | undefined;
}

let host: RunHost | undefined;
let workflow: ((input: unknown) => Promise<unknown>) | undefined;

/** A promise that never settles: a run this process stopped working on neither ends nor fails here. */
export const forever = <T>(): Promise<T> => new Promise<T>(() => undefined);

/**
 * The one workflow, registered once per process (DBOS refuses registrations after its first
 * launch): it runs whatever run function the current engine holds.
 */
function registered(): (input: unknown) => Promise<unknown> {
  workflow ??= loaded().DBOS.registerWorkflow(
    async (input: unknown) => {
      const running = host?.begin();
      if (!running) return forever();
      try {
        return await running.run(input);
      } catch (error) {
        // An error from a run this engine no longer works on is not the run's: another process continues it.
        if (!running.working()) return forever();
        throw error;
      } finally {
        running.end();
      }
    },
    { name: 'plm-run', maxRecoveryAttempts: MAX_TAKEOVERS },
  );
  return workflow;
}

/** DBOS's lines through our logger: its own information lines at debug, since ours say what matters. */
function dbosLogger(logger: EngineLogger): DLogger {
  const line = (entry: unknown) => (entry instanceof Error ? entry.message : typeof entry === 'string' ? entry : JSON.stringify(entry));
  const safe = (write: () => void) => {
    try {
      write();
    } catch {
      // Logging never throws into the engine.
    }
  };
  return {
    debug: (entry) => safe(() => logger.debug({ from: 'dbos' }, line(entry))),
    info: (entry) => safe(() => logger.debug({ from: 'dbos' }, line(entry))),
    warn: (entry) => safe(() => logger.warn({ from: 'dbos' }, line(entry))),
    error: (entry) => safe(() => logger.error({ from: 'dbos', ...(entry instanceof Error ? { stack: entry.stack } : {}) }, line(entry))),
  };
}

/** Brings DBOS's tables (schema dbos) up to date on `pool`; the caller holds the migration lock. */
export async function migrateDbos(pool: pg.Pool, url: string, logger: EngineLogger): Promise<void> {
  await loaded().ensureSystemDatabase(url, dbosLogger(logger) as unknown as GlobalLogger, pool, 'dbos');
}

/** Launches DBOS for this process under `executorId`, executing runs through `runHost`. */
export async function launchDbos(options: {
  pool: pg.Pool;
  url: string;
  version: string;
  executorId: string;
  logger: EngineLogger;
  runHost: RunHost;
}): Promise<void> {
  const { DBOS } = loaded();
  registered();
  host = options.runHost;
  DBOS.setConfig({
    name: APP,
    systemDatabaseUrl: options.url,
    systemDatabasePool: options.pool,
    runMigrations: false,
    applicationVersion: options.version,
    executorID: options.executorId,
    logger: dbosLogger(options.logger),
  });
  await DBOS.launch();
}

export const dbosRunning = (): boolean => sdk?.DBOS.isInitialized() ?? false;

/** How long a call from outside a run (start, cancel, a status) keeps retrying a database that does not answer. */
const CALL_MS = 5_000;

/**
 * Runs `call` into DBOS with its retries bounded: DBOS retries a database that does not answer
 * for as long as it takes, which suits a run (it waits for the database) but not a caller, who
 * gets the error after `limitMs`. Runs started by `call` keep DBOS's own retries.
 */
function bounded<T>(call: () => Promise<T>, limitMs = CALL_MS): Promise<T> {
  return loaded().runWithAbortableDbRetries(AbortSignal.timeout(limitMs), call);
}

/** Starts run `runId` here unless a run of that id exists already; resolves once it is recorded. */
export async function startRun(runId: string, input: unknown): Promise<void> {
  await bounded(() => loaded().DBOS.startWorkflow(registered(), { workflowID: runId })(input));
}

/** Moves every unfinished run of executor `executorId` (of our version) to the queue any process takes from; returns how many. */
export async function takeOver(executorId: string): Promise<number> {
  return (await loaded().getExecutor().recoverPendingWorkflows([executorId])).length;
}

/** The executors that have unfinished runs of `version`: some may be dead with nobody watching them. */
export async function executorsWithRuns(version: string): Promise<string[]> {
  const runs = await bounded(() =>
    loaded().DBOS.listWorkflows({ status: 'PENDING', applicationVersion: version, loadInput: false, loadOutput: false }),
  );
  return [...new Set(runs.map((run) => run.executorId).filter((id): id is string => Boolean(id)))];
}

/** Stops taking runs from the queue (others' runs taken over, or our own handed back). */
export async function stopTaking(): Promise<void> {
  await loaded().getExecutor().deactivateEventReceivers();
}

export async function cancelRun(runId: string): Promise<void> {
  await bounded(() => loaded().DBOS.cancelWorkflow(runId));
}

/** Run `runId`'s outcome, waiting up to `waitMs` for it to end wherever it runs. */
export function runOutcome<Output>(runId: string, waitMs: number): Promise<RunOutcome<Output>> {
  const { DBOS } = loaded();
  return bounded(async (): Promise<RunOutcome<Output>> => {
    if (!(await DBOS.getWorkflowStatus(runId))) return { status: 'unknown' };
    let output: Output | null;
    try {
      output = await DBOS.getResult<Output>(runId, { timeoutSeconds: waitMs / 1000 });
    } catch (error) {
      if ((await DBOS.getWorkflowStatus(runId))?.status === 'CANCELLED') return { status: 'cancelled' };
      return { status: 'failed', message: (error as Error).message };
    }
    // null is both "not ended in time" and a run that returned null: the status says which.
    if (output === null && (await DBOS.getWorkflowStatus(runId))?.status !== 'SUCCESS') return { status: 'running' };
    return { status: 'done', output: output as Output };
  }, waitMs + CALL_MS);
}

/**
 * Shuts DBOS down, waiting up to `outcomesMs` for the runs still in its hands here: those whose
 * outcome is being recorded. Runs this process stopped working on never end here (see forever),
 * so a stop that hands runs over waits for none.
 */
export async function shutdownDbos(outcomesMs = 0): Promise<void> {
  host = undefined;
  await loaded().DBOS.shutdown(outcomesMs > 0 ? { workflowCompletionTimeoutMS: outcomesMs } : undefined);
}

/** The DBOS step wrapper: `work` checkpointed as step `name`, tried again by DBOS only as `retries` says. */
export function dbosStep<T>(name: string, work: (cancelled: AbortSignal | undefined) => Promise<T>, retries?: StepRetries): Promise<T> {
  const { DBOS } = loaded();
  const config = retries
    ? {
        retriesAllowed: true,
        maxAttempts: retries.maxAttempts,
        intervalSeconds: retries.intervalSeconds,
        backoffRate: retries.backoffRate,
        shouldRetry: retries.retryIf,
      }
    : { retriesAllowed: false };
  return DBOS.runStep(() => work(DBOS.stepStatus?.cancelSignal), { name, ...config });
}
