import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPool, PgRunStorage, reserve, settle } from '../../packages/team/src/index.js';
import { newRunId } from '../../src/store/store.js';
import { storeDatabase } from './run-store-setup.js';

/**
 * What a run costs the database in round trips, the thing many runs at once queue on: each
 * text kept, each budget held and each settlement is one statement, not a transaction of several.
 */
const db = await storeDatabase();

/** A pool whose every statement, on any of its connections, is counted. */
function counted(pool: pg.Pool): { statements: () => number } {
  let statements = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      statements++;
      return query(...args);
    }) as typeof client.query;
  });
  return { statements: () => statements };
}

describe('round trips to the database', () => {
  it('keeps a text written whole in one statement, and a short answer streamed in one when it finishes', async () => {
    const pool = db.newPool();
    const { statements } = counted(pool);
    const place = await new PgRunStorage(pool, db.ann).createRun(newRunId());
    let before = statements();
    await place.write('run.json', '{"status":"running"}\n');
    expect(statements() - before).toBe(1);

    before = statements();
    const writer = place.writer('candidate-0_a.md');
    writer.write('4, ');
    writer.write('since 2 + 2 = 4');
    await writer.finish();
    expect(statements() - before).toBe(1);
    expect(await place.read('candidate-0_a.md', 100)).toBe('4, since 2 + 2 = 4');
    expect(await place.read('run.json', 100)).toBe('{"status":"running"}\n');
  });

  it('holds a run’s worst case in one statement, and settles its cost in one', async () => {
    const pool = db.newPool();
    const { statements } = counted(pool);
    const run = newRunId();
    let before = statements();
    expect((await reserve(pool, { memberId: db.ann.id, runId: run, worstCaseUsd: 0.5, models: ['m/a'] })).ok).toBe(true);
    expect(statements() - before).toBe(1);
    before = statements();
    expect(await settle(pool, { runId: run, costUsd: 0.2, tokens: 10, status: 'complete' })).toBe(true);
    expect(statements() - before).toBe(1);
    const { rows } = await db.pool.query('SELECT cost_usd::float8 AS cost, settled_at IS NOT NULL AS settled FROM plm.runs WHERE id = $1', [
      run,
    ]);
    expect(rows).toEqual([{ cost: 0.2, settled: true }]);
  });
});

describe('connections', () => {
  afterEach(() => vi.useRealTimers());

  it('a server’s pool keeps a connection once open, however long it idles; a command’s lets it go after 10 s', async () => {
    const [server, command] = [openPool(db.url, { max: 2, keepIdle: true }), openPool(db.url, { max: 2 })];
    try {
      // Connected on real timers; the idle limit is counted on fake ones.
      await Promise.all([server.query('SELECT 1'), command.query('SELECT 1')]);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      await Promise.all([server.query('SELECT 1'), command.query('SELECT 1')]);
      vi.advanceTimersByTime(60_000);
      expect([server.totalCount, command.totalCount]).toEqual([1, 0]);
    } finally {
      vi.useRealTimers();
      await Promise.all([server.end(), command.end()]);
    }
  });
});
