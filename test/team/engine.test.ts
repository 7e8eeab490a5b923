import net from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool, startEngine, TeamError } from '../../packages/team/src/index.js';
import { waitFor } from '../support/wait.js';
import { testDatabase } from './database.js';
import { holdGates, launchEngineProcess, startEngineProcess, type EngineProcess } from './engine-process.js';

let url: string;
let pool: pg.Pool;
beforeAll(async () => {
  url = await testDatabase();
  pool = openPool(url, { max: 3 });
});
afterAll(() => pool?.end());

/** How many times each step of `run` started, per executor: { "0": { A: 1 }, ... }. */
async function starts(run: string): Promise<Record<string, Record<string, number>>> {
  const { rows } = await pool.query<{ step: number; executor: string; n: number }>(
    "SELECT step, executor, count(*)::int AS n FROM step_log WHERE run_id = $1 AND phase = 'start' GROUP BY step, executor",
    [run],
  );
  const counted: Record<string, Record<string, number>> = {};
  for (const row of rows) counted[row.step] = { ...counted[row.step], [row.executor]: row.n };
  return counted;
}

/** The gates of these steps of `run`. */
const steps = (run: string, ...indexes: number[]) => indexes.map((index): [string, number] => [run, index]);

async function resultOf(engine: EngineProcess, run: string) {
  engine.send({ result: run });
  return (await engine.next((event) => event.event === 'result' && event.run === run)).outcome;
}

describe('the engine across processes', () => {
  it('takes a killed process’s run over within 30 s, running again only the step that had not finished', async () => {
    const gates = await holdGates(url, steps('kill', 0, 1, 2));
    const a = await startEngineProcess(url);
    const b = await startEngineProcess(url);
    a.send({ start: 'kill', steps: 3 });
    await a.stepStarted('kill', 0);
    await gates.open('kill', 0);
    await a.stepStarted('kill', 1);
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    const takenOver = await b.stepStarted('kill', 1, 30_000);
    console.log(`takeover after kill -9: ${takenOver.at - killedAt} ms`);
    expect(takenOver.at - killedAt).toBeLessThan(30_000);
    await gates.open('kill', 1);
    await gates.open('kill', 2);
    expect(await resultOf(b, 'kill')).toEqual({ status: 'done', output: { parts: ['kill:0', 'kill:1', 'kill:2'] } });
    // Step 0 had finished on A: B used its saved result. Step 1 was cut short on A and ran again on B.
    expect(await starts('kill')).toEqual({
      0: { [a.executorId]: 1 },
      1: { [a.executorId]: 1, [b.executorId]: 1 },
      2: { [b.executorId]: 1 },
    });
  }, 90_000);

  it('runs unsaved work again from its start in the process that takes the run over, and saves nothing of it', async () => {
    const gates = await holdGates(url, steps('unsaved', 0, 1));
    const a = await startEngineProcess(url);
    const b = await startEngineProcess(url);
    a.send({ start: 'unsaved', steps: 2, unsaved: true });
    await a.stepStarted('unsaved', 0);
    await gates.open('unsaved', 0);
    await a.stepStarted('unsaved', 1);
    a.child.kill('SIGKILL');
    await b.stepStarted('unsaved', 1, 30_000);
    await gates.open('unsaved', 1);
    expect(await resultOf(b, 'unsaved')).toEqual({ status: 'done', output: { parts: ['unsaved:0', 'unsaved:1'] } });
    expect(await starts('unsaved')).toEqual({
      0: { [a.executorId]: 1, [b.executorId]: 1 },
      1: { [a.executorId]: 1, [b.executorId]: 1 },
    });
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM dbos.operation_outputs WHERE workflow_uuid = $1', [
      'unsaved',
    ]);
    expect(rows[0]!.n).toBe(0);
  }, 90_000);

  it('runs a run id once however many times and wherever it is started', async () => {
    const gates = await holdGates(url, [['twice', 0]]);
    const [a, b] = await Promise.all([startEngineProcess(url), startEngineProcess(url)]);
    a.send({ start: 'twice', steps: 2 });
    b.send({ start: 'twice', steps: 2 });
    a.send({ start: 'twice', steps: 2 });
    await b.next((event) => event.event === 'accepted');
    await a.next((event) => event.event === 'accepted' && a.events.filter((e) => e.event === 'accepted').length === 2);
    await gates.open('twice', 0);
    expect(await resultOf(b, 'twice')).toEqual({ status: 'done', output: { parts: ['twice:0', 'twice:1'] } });
    const counted = await starts('twice');
    expect(Object.values(counted[0]!)).toEqual([1]);
    expect(Object.values(counted[1]!)).toEqual([1]);
  }, 60_000);

  it('drains on SIGTERM: refuses new runs and finishes the one going on within the limit', async () => {
    const gates = await holdGates(url, [['drain', 0]]);
    const a = await startEngineProcess(url, { PLM_TEST_DRAIN_MS: '30000' });
    a.send({ start: 'drain', steps: 2 });
    await a.stepStarted('drain', 0);
    a.child.kill('SIGTERM');
    await a.next((event) => event.event === 'draining');
    a.send({ start: 'late', steps: 1 });
    expect(await a.next((event) => event.event === 'refused')).toMatchObject({ kind: 'engine_stopped' });
    await gates.open('drain', 0);
    expect(await a.next((event) => event.event === 'drained')).toMatchObject({ finished: 1, handedOver: 0 });
    expect(await a.exited).toBe(0);
    expect(await starts('drain')).toEqual({ 0: { [a.executorId]: 1 }, 1: { [a.executorId]: 1 } });
  }, 60_000);

  it('drains on SIGTERM a run whose start was still being recorded: it runs here, and the process exits once it has ended', async () => {
    const gates = await holdGates(url, [['recorded', 0]]);
    const a = await startEngineProcess(url, { PLM_TEST_DRAIN_MS: '30000' });
    // A peer, which would take the run over if A left it behind.
    const b = await startEngineProcess(url);
    // New workflow rows wait while the table is held: A's start is on its way to the database as the signal comes.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE dbos.workflow_status IN SHARE ROW EXCLUSIVE MODE');
      a.send({ start: 'recorded', steps: 1 });
      await waitFor(async () => {
        const { rows } = await pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'INSERT INTO%workflow_status%'",
        );
        return rows.length > 0;
      }, 10_000);
      a.child.kill('SIGTERM');
      await a.next((event) => event.event === 'draining');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    await a.next((event) => event.event === 'accepted');
    await a.stepStarted('recorded', 0);
    await gates.open('recorded', 0);
    expect(await a.next((event) => event.event === 'drained')).toMatchObject({ finished: 1, handedOver: 0 });
    expect(await a.exited).toBe(0);
    expect(await starts('recorded')).toEqual({ 0: { [a.executorId]: 1 } });
    // Its outcome was recorded by A too: no peer took it over to finish it.
    const { rows } = await pool.query("SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = 'recorded'");
    expect(rows).toEqual([{ status: 'SUCCESS', executor_id: a.executorId }]);
    expect(await resultOf(b, 'recorded')).toEqual({ status: 'done', output: { parts: ['recorded:0'] } });
  }, 60_000);

  it('hands a run over when draining reaches its limit, and a peer continues it', async () => {
    const gates = await holdGates(url, [['handover', 1]]);
    const a = await startEngineProcess(url, { PLM_TEST_DRAIN_MS: '500' });
    const b = await startEngineProcess(url);
    a.send({ start: 'handover', steps: 2 });
    await a.stepStarted('handover', 1);
    a.child.kill('SIGTERM');
    expect(await a.next((event) => event.event === 'drained')).toMatchObject({ finished: 0, handedOver: 1 });
    await b.stepStarted('handover', 1, 30_000);
    await gates.open('handover', 1);
    expect(await resultOf(b, 'handover')).toEqual({ status: 'done', output: { parts: ['handover:0', 'handover:1'] } });
    expect(await starts('handover')).toEqual({ 0: { [a.executorId]: 1 }, 1: { [a.executorId]: 1, [b.executorId]: 1 } });
  }, 60_000);

  it('fences a process that loses its liveness connection: under that id it starts no further step, and the run goes on', async () => {
    const gates = await holdGates(url, steps('fence', 0, 1));
    const a = await startEngineProcess(url);
    const b = await startEngineProcess(url);
    a.send({ start: 'fence', steps: 3 });
    await a.stepStarted('fence', 0);
    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'plm-live:' || $1", [a.executorId]);
    await a.next((event) => event.event === 'fenced');
    // B, or A under its next executor id, runs step 0 again; A's first id never runs another step.
    await Promise.any([
      b.stepStarted('fence', 0, 30_000),
      a.next((event) => event.event === 'step' && a.events.filter((e) => e.event === 'step').length === 2, 30_000),
    ]);
    await gates.open('fence', 0);
    await gates.open('fence', 1);
    expect(await resultOf(b, 'fence')).toEqual({ status: 'done', output: { parts: ['fence:0', 'fence:1', 'fence:2'] } });
    const counted = await starts('fence');
    expect(counted[0]![a.executorId]).toBe(1);
    for (const step of [1, 2]) {
      expect(counted[step]![a.executorId]).toBeUndefined();
      expect(Object.values(counted[step]!)).toEqual([1]);
    }
  }, 60_000);

  it('takes over, as it starts, the runs of a process that died with nobody watching', async () => {
    const gates = await holdGates(url, [['orphan', 0]]);
    const a = await startEngineProcess(url);
    a.send({ start: 'orphan', steps: 1 });
    await a.stepStarted('orphan', 0);
    a.child.kill('SIGKILL');
    await a.exited;
    const c = await startEngineProcess(url);
    await c.stepStarted('orphan', 0, 30_000);
    await gates.open('orphan', 0);
    expect(await resultOf(c, 'orphan')).toEqual({ status: 'done', output: { parts: ['orphan:0'] } });
  }, 60_000);
});

describe('starting the engine', () => {
  it('migrates safely when several processes start at once on a new database', async () => {
    const fresh = await testDatabase();
    const engines = await Promise.all([launchEngineProcess(fresh), launchEngineProcess(fresh), launchEngineProcess(fresh)]);
    for (const engine of engines)
      expect(await engine.next((event) => event.event === 'started' || event.event === 'failed', 40_000)).toMatchObject({
        event: 'started',
      });
  }, 60_000);

  it('refuses an executor id a live process holds', async () => {
    const a = await startEngineProcess(url);
    const own = openPool(url, { max: 3 });
    try {
      const refused = startEngine({
        pool: own,
        databaseUrl: url,
        logger: quiet,
        version: 'test-1',
        executorId: a.executorId,
        run: async () => null,
      });
      await expect(refused).rejects.toMatchObject({ name: 'TeamError', kind: 'bad_executor_id' });
    } finally {
      await own.end();
    }
  }, 30_000);

  it('fails with database_down, within the connect limit, when the database does not answer', async () => {
    // A server that accepts connections and never says a word, and a port nobody listens on.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    try {
      for (const port of [(silent.address() as net.AddressInfo).port, closedPort]) {
        const down = `postgres://postgres@127.0.0.1:${port}/nothing`;
        const own = openPool(down, { max: 2 });
        const started = Date.now();
        const error = await startEngine({ pool: own, databaseUrl: down, logger: quiet, version: 'test-1', run: async () => null }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(TeamError);
        expect(error).toMatchObject({ kind: 'database_down' });
        expect(Date.now() - started).toBeLessThan(6_000);
        await own.end();
      }
    } finally {
      silent.close();
    }
  }, 30_000);
});

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
