import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPool } from '../../packages/team/src/index.js';
import { holdGates, startEngineProcess } from './engine-process.js';
import { startPostgres, type TestPostgres } from './postgres.js';

// A cluster of this file's own: the test stops and restarts it.
let postgres: TestPostgres;
let pool: pg.Pool;
beforeAll(async () => {
  postgres = await startPostgres();
  pool = openPool(postgres.url, { max: 2 });
  // The test cluster commits without waiting for the disk; a crash (stop -m immediate) would then
  // lose the last commits, which a real database never does. This file's database waits.
  await pool.query('ALTER DATABASE postgres SET synchronous_commit = on');
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await postgres?.remove();
});

it('after a database restart, starts again under a new executor id and continues its run from the unfinished step', async () => {
  const gates = await holdGates(postgres.url, [['outage', 1]]);
  const a = await startEngineProcess(postgres.url, { PLM_TEST_DEBUG: '1' });
  a.send({ start: 'outage', steps: 2 });
  await a.stepStarted('outage', 1);
  await postgres.stop();
  await a.next((event) => event.event === 'fenced');
  await postgres.start();
  // The gate went with the test's connection: step 1, run again by the new incarnation, passes at once.
  await a.next(
    (event) => event.event === 'step' && event.step === 1 && a.events.filter((e) => e.event === 'step' && e.step === 1).length === 2,
    40_000,
  );
  void gates;
  a.send({ result: 'outage' });
  const result = await a.next((event) => event.event === 'result');
  expect(result.outcome).toEqual({ status: 'done', output: { parts: ['outage:0', 'outage:1'] } });
  const { rows } = await pool.query<{ step: number; executor: string }>(
    "SELECT step, executor FROM step_log WHERE run_id = 'outage' AND phase = 'start' ORDER BY at",
  );
  expect(rows.map((row) => row.step)).toEqual([0, 1, 1]);
  expect(rows[0]!.executor).toBe(a.executorId);
  expect(rows[1]!.executor).toBe(a.executorId);
  expect(rows[2]!.executor).not.toBe(a.executorId);
  // The engine takes new runs again.
  a.send({ start: 'after-outage', steps: 1 });
  await a.stepStarted('after-outage', 0);
}, 90_000);
