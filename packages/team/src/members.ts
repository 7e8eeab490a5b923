import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { TeamError } from './errors.js';

export type Period = 'day' | 'week' | 'month';
export const PERIODS: readonly Period[] = ['day', 'week', 'month'];

/** A member as `users list --json` gives it: the current period's spending, in US dollars. */
export interface MemberListing {
  name: string;
  /** null: no limit. */
  budget_usd: number | null;
  period: Period;
  /** Settled runs of this period. */
  spent_usd: number;
  /** Runs of this period still going: their worst case, held until they settle. */
  reserved_usd: number;
  /** Runs started this period. */
  runs: number;
}

/** A new bearer token: 256 random bits, prefixed so it is recognisable in a config file. */
export const newToken = () => `plm_${randomBytes(32).toString('base64url')}`;

/** What is stored and looked up instead of the token. */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

function checkName(name: string): void {
  if (!NAME.test(name))
    throw new TeamError(
      'bad_input',
      `"${name}" is not a member name: 1 to 64 letters, digits and . _ @ -, beginning with a letter or digit`,
    );
}

function checkBudget(budgetUsd: number | null | undefined): void {
  if (budgetUsd != null && !(Number.isFinite(budgetUsd) && budgetUsd >= 0 && budgetUsd < 1e8))
    throw new TeamError('bad_input', `a budget is a number of US dollars from 0 to 99999999, not ${budgetUsd}`);
}

/** Adds a member and returns the token, the only time it exists outside the member's hands. */
export async function addMember(
  pool: pg.Pool,
  { name, budgetUsd = null, period = 'month' }: { name: string; budgetUsd?: number | null; period?: Period },
): Promise<{ name: string; token: string }> {
  checkName(name);
  checkBudget(budgetUsd);
  const token = newToken();
  try {
    await pool.query('INSERT INTO plm.members (name, token_hash, budget_usd, period) VALUES ($1, $2, $3, $4)', [
      name,
      tokenHash(token),
      budgetUsd,
      period,
    ]);
  } catch (error) {
    if ((error as { code?: unknown }).code === '23505')
      throw new TeamError('member_exists', `a member named ${name} exists already (revoked members keep their name)`, { cause: error });
    throw error;
  }
  return { name, token };
}

/** The listing's columns for the members `where` selects, each in its own current period. */
const LISTING_SQL = (where: string) => `
SELECT m.name, m.budget_usd::float8 AS budget_usd, m.period,
       COALESCE(bp.spent_usd, 0)::float8 AS spent_usd, COALESCE(bp.reserved_usd, 0)::float8 AS reserved_usd,
       (SELECT count(*)::int FROM plm.runs r WHERE r.member_id = m.id AND r.period_start = plm.period_start(m.period, now())) AS runs
FROM plm.members m
LEFT JOIN plm.budget_periods bp ON bp.member_id = m.id AND bp.period_start = plm.period_start(m.period, now())
WHERE m.revoked_at IS NULL ${where}
ORDER BY m.name`;

/** Every member not revoked, by name. */
export async function listMembers(pool: pg.Pool): Promise<MemberListing[]> {
  return (await pool.query<MemberListing>(LISTING_SQL(''))).rows;
}

/** Sets a member's budget (null: none) and, when given, its period; returns the member as listed. */
export async function setBudget(
  pool: pg.Pool,
  name: string,
  { budgetUsd, period }: { budgetUsd: number | null; period?: Period },
): Promise<MemberListing> {
  checkBudget(budgetUsd);
  const { rowCount } = await pool.query(
    'UPDATE plm.members SET budget_usd = $2, period = COALESCE($3, period) WHERE name = $1 AND revoked_at IS NULL',
    [name, budgetUsd, period ?? null],
  );
  if (rowCount === 0) throw noSuchMember(name);
  const { rows } = await pool.query<MemberListing>(LISTING_SQL('AND m.name = $1'), [name]);
  return rows[0]!;
}

/** Revokes a member's token for good; their runs and spending stay for the audit. */
export async function revokeMember(pool: pg.Pool, name: string): Promise<{ name: string; revoked_at: string }> {
  const { rows } = await pool.query<{ revoked_at: Date }>(
    'UPDATE plm.members SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL RETURNING revoked_at',
    [name],
  );
  if (rows.length === 0) throw noSuchMember(name);
  return { name, revoked_at: rows[0]!.revoked_at.toISOString() };
}

/** The member a bearer token belongs to, unless unknown or revoked. */
export async function memberByToken(pool: pg.Pool, token: string): Promise<{ id: string; name: string } | undefined> {
  const { rows } = await pool.query<{ id: string; name: string }>(
    'SELECT id::text, name FROM plm.members WHERE token_hash = $1 AND revoked_at IS NULL',
    [tokenHash(token)],
  );
  return rows[0];
}

const noSuchMember = (name: string) => new TeamError('no_such_member', `no member named ${name} (or revoked)`);
