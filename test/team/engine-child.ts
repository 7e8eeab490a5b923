/**
 * A process running the team engine for the engine tests: `node --import tsx engine-child.ts`
 * with PLM_TEST_DB (a database URL). Its runs are `{ steps: n }`: n steps in a row, each of which
 * records its start and end in the table `step_log` and, between the two, waits until the test
 * lets it go (the test holds an advisory lock per step and releases it). Commands come as JSON
 * lines on stdin (`{"start": id, "steps": n}`, with `"unsaved": true` for unsaved work rather than steps, `{"result": id}`, `{"cancel": id}`,
 * `{"drain": limitMs}`); events go out as JSON lines on stdout. SIGTERM drains (PLM_TEST_DRAIN_MS).
 */
import { createInterface } from 'node:readline';
import { openPool, startEngine, type Engine, type RunSteps } from '../../packages/team/src/index.js';

/** A run of `steps` parts, each a step of the engine, or unsaved work. */
type Input = { runId: string; steps: number; unsaved?: boolean };

const url = process.env.PLM_TEST_DB!;
const drainMs = Number(process.env.PLM_TEST_DRAIN_MS ?? 10_000);
// A test that has stopped listening closes the pipe; the process is killed next.
process.stdout.on('error', () => undefined);
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
const pool = openPool(url, { max: 12, name: 'plm-engine-test' });
// Processes starting at once on a new database race to create the table: IF NOT EXISTS alone
// can still fail on the type it creates (23505), which means another process made it.
await pool
  .query(
    `CREATE TABLE IF NOT EXISTS step_log (
  run_id text NOT NULL, step int NOT NULL, executor text NOT NULL, phase text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`,
  )
  .catch((error: { code?: string }) => {
    if (error.code !== '23505' && error.code !== '42P07') throw error;
  });

/** One step: logged, held until the test releases its lock, logged again. */
async function part(runId: string, index: number, executor: string): Promise<string> {
  await pool.query('INSERT INTO step_log (run_id, step, executor, phase) VALUES ($1, $2, $3, $4)', [runId, index, executor, 'start']);
  say({ event: 'step', run: runId, step: index });
  const client = await pool.connect();
  // A connection that breaks while held (a database restart) reports it here as well as to its query.
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    await client.query("SET LOCAL lock_timeout = '120s'; SET LOCAL statement_timeout = '120s'");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('gate:' || $1 || ':' || $2, 0))", [runId, index]);
    await client.query('COMMIT');
  } finally {
    client.removeListener('error', ignore);
    client.release();
  }
  await pool.query('INSERT INTO step_log (run_id, step, executor, phase) VALUES ($1, $2, $3, $4)', [runId, index, executor, 'end']);
  return `${runId}:${index}`;
}

const logLine = (level: string) => (fields: Record<string, unknown>, message: string) =>
  process.stderr.write(`${level} ${message} ${JSON.stringify(fields)}\n`);
// A run taken over as the engine starts may reach its first step before startEngine returns.
let engineStarted: (engine: Engine<Input, { parts: string[] }>) => void = () => undefined;
const started = new Promise<Engine<Input, { parts: string[] }>>((resolve) => (engineStarted = resolve));
const engine = await startEngine<Input, { parts: string[] }>({
  pool,
  databaseUrl: url,
  version: process.env.PLM_TEST_VERSION ?? 'test-1',
  logger: {
    debug: process.env.PLM_TEST_DEBUG ? logLine('debug') : () => undefined,
    info: logLine('info'),
    warn: logLine('warn'),
    error: logLine('error'),
  },
  onFenced: (error) => say({ event: 'fenced', message: error.message }),
  run: async (input, steps: RunSteps) => {
    const parts: string[] = [];
    const work = (index: number) => async () => part(input.runId, index, (await started).executorId);
    for (let index = 0; index < input.steps; index++)
      parts.push(await (input.unsaved ? steps.unsaved(work(index)) : steps.step(`part-${index}`, work(index))));
    return { parts };
  },
}).catch((error: Error) => {
  say({ event: 'failed', kind: (error as { kind?: string }).kind, message: error.message, stack: error.stack });
  process.exit(1);
});
engineStarted(engine);
say({ event: 'started', executor: engine.executorId });

async function drain(limitMs: number) {
  const report = await engine.drain(limitMs);
  say({ event: 'drained', ...report });
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => {
  const drained = drain(drainMs);
  // The engine refuses new runs from here on: drain() decides that before its first wait.
  say({ event: 'draining' });
  void drained;
});

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as {
    start?: string;
    steps?: number;
    unsaved?: boolean;
    result?: string;
    cancel?: string;
    drain?: number;
  };
  try {
    if (command.start) {
      await engine.start(command.start, { runId: command.start, steps: command.steps ?? 1, unsaved: command.unsaved });
      say({ event: 'accepted', run: command.start });
    } else if (command.result) say({ event: 'result', run: command.result, outcome: await engine.result(command.result, 20_000) });
    else if (command.cancel) {
      await engine.cancel(command.cancel);
      say({ event: 'cancelled', run: command.cancel });
    } else if (command.drain !== undefined) await drain(command.drain);
  } catch (error) {
    say({ event: 'refused', kind: (error as { kind?: string }).kind, message: (error as Error).message });
  }
}
