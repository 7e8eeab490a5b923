import type pg from 'pg';

/** One member's runs since a time, as `usage --json` gives it. */
export interface MemberUsage {
  name: string;
  runs: number;
  /** Tokens of settled runs. */
  tokens: number;
  /** US dollars of settled runs; a run still going counts once it ends. */
  cost_usd: number;
}

/** Per member, the runs started at or after `since` (all when undefined): revoked members too, when they have runs. */
export async function usage(pool: pg.Pool, since?: Date): Promise<MemberUsage[]> {
  const { rows } = await pool.query<MemberUsage>(
    `SELECT m.name, count(r.id)::int AS runs, COALESCE(sum(r.tokens), 0)::float8 AS tokens, COALESCE(sum(r.cost_usd), 0)::float8 AS cost_usd
     FROM plm.members m LEFT JOIN plm.runs r ON r.member_id = m.id AND ($1::timestamptz IS NULL OR r.created_at >= $1)
     GROUP BY m.id, m.name
     HAVING m.revoked_at IS NULL OR count(r.id) > 0
     ORDER BY m.name`,
    [since ?? null],
  );
  return rows;
}
