import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, migrate, openPool, reserve, revokeMember, settle } from '../../packages/team/src/index.js';
import { cli } from './cli.js';
import { testDatabase } from './database.js';

let url: string;
let pool: pg.Pool;
const usage = (...args: string[]) => cli(['usage', ...args], { PARALLEL_LLM_DATABASE_URL: url });

/** A finished run of `name`'s, started at `createdAt`. */
async function ran(name: string, runId: string, createdAt: string, costUsd: number, tokens: number): Promise<void> {
  const { rows } = await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name]);
  await reserve(pool, { memberId: rows[0]!.id, runId, worstCaseUsd: 1, models: ['a/x'] });
  await settle(pool, { runId, costUsd, tokens, status: 'completed' });
  await pool.query('UPDATE plm.runs SET created_at = $2 WHERE id = $1', [runId, createdAt]);
}

beforeAll(async () => {
  url = await testDatabase();
  pool = openPool(url);
  await migrate(pool);
  for (const name of ['ann', 'bob', 'cy', 'old']) await addMember(pool, { name });
  await ran('ann', 'r1', '2026-11-20T10:00:00Z', 0.25, 1000);
  await ran('ann', 'r2', '2026-12-02T10:00:00Z', 0.5, 3000);
  await ran('bob', 'r3', '2026-12-01T00:00:00Z', 0.125, 500);
  await ran('old', 'r4', '2026-11-02T00:00:00Z', 1, 9000);
  await revokeMember(pool, 'old');
  // A run still going counts as a run, its cost once it ends.
  const { rows } = await pool.query<{ id: string }>("SELECT id::text FROM plm.members WHERE name = 'bob'");
  await reserve(pool, { memberId: rows[0]!.id, runId: 'r5', worstCaseUsd: 1 });
});
afterAll(() => pool.end());

describe('usage, through the real command', () => {
  it('gives runs, tokens and cost per member as JSON, revoked members with runs included', async () => {
    const all = await usage('--json');
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual([
      { name: 'ann', runs: 2, tokens: 4000, cost_usd: 0.75 },
      { name: 'bob', runs: 2, tokens: 500, cost_usd: 0.125 },
      { name: 'cy', runs: 0, tokens: 0, cost_usd: 0 },
      { name: 'old', runs: 1, tokens: 9000, cost_usd: 1 },
    ]);
  });

  it('counts only the runs since a date (midnight UTC) or an ISO time, in a table by default', async () => {
    const since = await usage('--since', '2026-12-01');
    expect(since.stdout).toBe(
      ['NAME  RUNS  TOKENS  COST', 'ann   1     3000    $0.5000', 'bob   2     500     $0.1250', 'cy    0     0       $0.0000', ''].join(
        '\n',
      ),
    );
    const later = JSON.parse((await usage('--since', '2026-12-01T00:00:01Z', '--json')).stdout) as Array<{ name: string; runs: number }>;
    expect(later.map(({ name, runs }) => [name, runs])).toEqual([
      ['ann', 1],
      ['bob', 1],
      ['cy', 0],
    ]);
  });

  it('refuses a --since that is not a date, before any database is needed', async () => {
    const bad = await cli(['usage', '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('parallel-llm-mcp usage: --since takes a date such as 2026-12-01 or an ISO time, not "last week"');
  });
});
