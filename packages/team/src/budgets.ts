import type pg from 'pg';
import { TeamError } from './errors.js';
import type { Period } from './members.js';

/** What a reservation decided. Amounts are US dollars; times are the period's, in UTC. */
export type Reservation =
  | { ok: true; periodStart: Date; resetsAt: Date }
  | { ok: false; budgetUsd: number; remainingUsd: number; period: Period; resetsAt: Date; worstCaseUsd: number | null };

/**
 * Reserves a run's worst case against its member's budget for the current period, and records
 * the run, in one statement (plm.reserve, migration 7). The reservation is one conditional UPDATE
 * of the period's row: under READ COMMITTED a second process's UPDATE of the same row waits for
 * the first to commit, then checks its condition against what the first left, so two calls that
 * each fit alone but not together never both pass, whichever processes make them. No budget
 * means no limit. A worst case of null (a model with no price) cannot be held against a budget:
 * refused where there is one, recorded as 0 where there is none.
 */
export async function reserve(
  pool: pg.Pool,
  { memberId, runId, worstCaseUsd, models = [] }: { memberId: string; runId: string; worstCaseUsd: number | null; models?: string[] },
): Promise<Reservation> {
  if (worstCaseUsd !== null && !(Number.isFinite(worstCaseUsd) && worstCaseUsd >= 0))
    throw new TeamError('bad_input', `a worst case of ${worstCaseUsd} US dollars`);
  const { rows } = await pool.query<{
    held: boolean;
    member_period: Period;
    starts: Date;
    resets: Date;
    budget: number;
    remaining: number;
  }>('SELECT * FROM plm.reserve($1, $2, $3, $4)', [memberId, runId, worstCaseUsd, models]);
  const found = rows[0];
  if (!found) throw new TeamError('no_such_member', `no member with id ${memberId} (or revoked)`);
  if (found.held) return { ok: true, periodStart: found.starts, resetsAt: found.resets };
  return {
    ok: false,
    budgetUsd: found.budget,
    remainingUsd: found.remaining,
    period: found.member_period,
    resetsAt: found.resets,
    worstCaseUsd,
  };
}

/**
 * Turns a run's reservation into its actual cost, once: the run's row is marked settled in the
 * same statement, so settling again (a replayed step, a second process) changes nothing.
 * Returns whether this call was the one that settled it.
 */
export function settle(
  pool: pg.Pool,
  { runId, costUsd, tokens, status }: { runId: string; costUsd: number; tokens: number; status: string },
): Promise<boolean> {
  return endReservation(
    pool,
    'UPDATE plm.runs SET cost_usd = $2, tokens = $3, status = $4, settled_at = now()',
    ', spent_usd = bp.spent_usd + $2',
    [runId, costUsd, tokens, status],
  );
}

/**
 * Gives back the reservation of a run that never started (its claim went to another run), and
 * forgets the run: it was never asked for. False when there is no such unsettled run.
 */
export function release(pool: pg.Pool, runId: string): Promise<boolean> {
  return endReservation(pool, 'DELETE FROM plm.runs', '', [runId]);
}

/**
 * Ends unsettled run $1's reservation in one statement: `run` (an UPDATE or DELETE of plm.runs)
 * changes its row, and its period's reserved amount drops by the run's; `spent` adds to that
 * period's SET (the cost, for a run that ran). Whether there was such a run.
 */
async function endReservation(pool: pg.Pool, run: string, spent: string, values: unknown[]): Promise<boolean> {
  const { rows } = await pool.query<{ ended: number }>(
    `WITH run AS (
       ${run}
       WHERE id = $1 AND settled_at IS NULL RETURNING member_id, period_start, reserved_usd
     ), period AS (
       UPDATE plm.budget_periods bp SET reserved_usd = bp.reserved_usd - run.reserved_usd${spent}
       FROM run WHERE bp.member_id = run.member_id AND bp.period_start = run.period_start
     )
     SELECT count(*)::int AS ended FROM run`,
    values,
  );
  return rows[0]?.ended === 1;
}

/** Cents, or a hundredth of a cent below a dollar, where model calls usually cost. */
const dollars = (amount: number) => `$${amount.toFixed(amount > 0 && amount < 1 ? 4 : 2)}`;

/** A refusal in words: what remains, what the call might cost, and when the budget resets. */
export function refusalMessage(refusal: Extract<Reservation, { ok: false }>): string {
  if (refusal.worstCaseUsd === null)
    return (
      `this call's worst case cannot be known (a model has no price), so it cannot be held against your budget of ` +
      `${dollars(refusal.budgetUsd)} this ${refusal.period}, of which ${dollars(refusal.remainingUsd)} remains`
    );
  return (
    `over budget: ${dollars(refusal.remainingUsd)} of ${dollars(refusal.budgetUsd)} remains this ${refusal.period}, ` +
    `and this call may cost up to ${dollars(refusal.worstCaseUsd)}; the budget resets at ${refusal.resetsAt.toISOString()}`
  );
}
