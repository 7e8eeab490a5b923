import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, listMembers, migrate, openPool, refusalMessage, release, reserve, settle } from '../../packages/team/src/index.js';
import { waitFor } from '../support/wait.js';
import { testDatabase } from './database.js';

let url: string;
let pool: pg.Pool;
beforeAll(async () => {
  url = await testDatabase();
  pool = openPool(url);
  await migrate(pool);
});
afterAll(() => pool.end());

let members = 0;
/** A new member with this budget; returns its id. */
async function member(budgetUsd: number | null, period: 'day' | 'week' | 'month' = 'month'): Promise<string> {
  const name = `m${++members}`;
  await addMember(pool, { name, budgetUsd, period });
  return (await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name])).rows[0]!.id;
}

let runs = 0;
const runId = () => `run-${++runs}`;

describe('budget periods', () => {
  it.each([
    ['day', '2026-12-09T15:30:00Z', '2026-12-09T00:00:00.000Z', '2026-12-10T00:00:00.000Z'],
    ['week', '2026-12-09T15:30:00Z', '2026-12-07T00:00:00.000Z', '2026-12-14T00:00:00.000Z'],
    ['week', '2026-12-06T23:59:59Z', '2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z'],
    ['month', '2026-12-31T23:59:59Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['month', '2027-02-14T01:00:00Z', '2027-02-01T00:00:00.000Z', '2027-03-01T00:00:00.000Z'],
  ])('a %s containing %s starts at %s and resets at %s in UTC, whatever the session’s time zone', async (period, at, start, end) => {
    const client = await pool.connect();
    try {
      for (const zone of ['UTC', 'Pacific/Kiritimati', 'America/Los_Angeles']) {
        await client.query(`SET TIME ZONE '${zone}'`);
        const { rows } = await client.query<{ start: Date; end: Date }>(
          'SELECT plm.period_start($1, $2::timestamptz) AS start, plm.period_end($1, $2::timestamptz) AS end',
          [period, at],
        );
        expect([rows[0]!.start.toISOString(), rows[0]!.end.toISOString()]).toEqual([start, end]);
      }
    } finally {
      client.release();
    }
  });
});

describe('reservations', () => {
  it('reserves the worst case and records the run; no budget means no limit', async () => {
    const id = await member(null);
    const run = runId();
    const reserved = await reserve(pool, { memberId: id, runId: run, worstCaseUsd: 1234.5, models: ['a/x', 'b/y'] });
    expect(reserved.ok).toBe(true);
    const { rows } = await pool.query('SELECT models, reserved_usd::float8 AS r, settled_at FROM plm.runs WHERE id = $1', [run]);
    expect(rows[0]).toEqual({ models: ['a/x', 'b/y'], r: 1234.5, settled_at: null });
  });

  it('refuses a call over what remains, saying what remains and when the period resets, and records no run', async () => {
    const id = await member(1, 'day');
    expect((await reserve(pool, { memberId: id, runId: runId(), worstCaseUsd: 0.75 })).ok).toBe(true);
    const run = runId();
    const refused = await reserve(pool, { memberId: id, runId: run, worstCaseUsd: 0.5 });
    if (refused.ok) throw new Error('reserved over the budget');
    expect(refused.remainingUsd).toBeCloseTo(0.25);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(refused.resetsAt.toISOString()).toBe(tomorrow.toISOString());
    expect(refusalMessage(refused)).toBe(
      `over budget: $0.2500 of $1.00 remains this day, and this call may cost up to $0.5000; the budget resets at ${tomorrow.toISOString()}`,
    );
    expect((await pool.query('SELECT 1 FROM plm.runs WHERE id = $1', [run])).rowCount).toBe(0);
  });

  it('of two calls from two connections that each fit alone but not together, exactly one passes', async () => {
    const id = await member(1);
    // Each reservation from a process of its own, as two servers would.
    const [first, second] = [openPool(url, { max: 1 }), openPool(url, { max: 1 })];
    const blocker = await pool.connect();
    try {
      // The period's row exists and is held, so both reservations are made and then wait on it together.
      await reserve(pool, { memberId: id, runId: runId(), worstCaseUsd: 0 });
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM plm.budget_periods WHERE member_id = $1 FOR UPDATE', [id]);
      const racing = [first, second].map((racer) => reserve(racer, { memberId: id, runId: runId(), worstCaseUsd: 0.6 }));
      await waitFor(async () => {
        const { rows } = await pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%plm.reserve(%'",
        );
        return rows[0]!.n === 2;
      });
      await blocker.query('COMMIT');
      const outcomes = await Promise.all(racing);
      expect(outcomes.map((outcome) => outcome.ok).sort()).toEqual([false, true]);
      const [row] = (await pool.query('SELECT reserved_usd::float8 AS r FROM plm.budget_periods WHERE member_id = $1', [id])).rows;
      expect(row.r).toBeCloseTo(0.6);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('settles a run to its actual cost once: a second settle changes nothing, and the freed amount can be reserved again', async () => {
    const id = await member(1);
    const run = runId();
    await reserve(pool, { memberId: id, runId: run, worstCaseUsd: 0.9 });
    expect(await settle(pool, { runId: run, costUsd: 0.2, tokens: 1500, status: 'completed' })).toBe(true);
    expect(await settle(pool, { runId: run, costUsd: 0.2, tokens: 1500, status: 'completed' })).toBe(false);
    const name = `m${members}`;
    expect((await listMembers(pool)).find((listed) => listed.name === name)).toEqual({
      name,
      budget_usd: 1,
      period: 'month',
      spent_usd: 0.2,
      reserved_usd: 0,
      runs: 1,
    });
    expect((await reserve(pool, { memberId: id, runId: runId(), worstCaseUsd: 0.8 })).ok).toBe(true);
  });

  it('releases a run that never started: its reservation comes back, nothing is spent, the run is forgotten; a settled run stays', async () => {
    const id = await member(1);
    const [unstarted, finished] = [runId(), runId()];
    await reserve(pool, { memberId: id, runId: unstarted, worstCaseUsd: 0.6 });
    await reserve(pool, { memberId: id, runId: finished, worstCaseUsd: 0.3 });
    expect(await settle(pool, { runId: finished, costUsd: 0.1, tokens: 10, status: 'completed' })).toBe(true);
    expect(await release(pool, unstarted)).toBe(true);
    expect(await release(pool, unstarted)).toBe(false);
    expect(await release(pool, finished)).toBe(false);
    const listed = (await listMembers(pool)).find((one) => one.name === `m${members}`);
    expect(listed).toMatchObject({ spent_usd: 0.1, reserved_usd: 0, runs: 1 });
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM plm.runs WHERE id = ANY($1)', [[unstarted, finished]]);
    expect(rows.map((row) => row.id)).toEqual([finished]);
  });
});
