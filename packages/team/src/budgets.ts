import type pg from 'pg';
import { inTransaction } from './database.js';
import { TeamError } from './errors.js';
import type { Period } from './members.js';

/** What a reservation decided. Amounts are US dollars; times are the period's, in UTC. */
export type Reservation =
  | { ok: true; periodStart: Date; resetsAt: Date }
  | { ok: false; budgetUsd: number; remainingUsd: number; period: Period; resetsAt: Date; worstCaseUsd: number | null };

/**
 * Reserves a run's worst case against its member's budget for the current period, and records
 * the run, in one transaction. The reservation is one conditional UPDATE of the period's row:
 * under READ COMMITTED a second process's UPDATE of the same row waits for the first to commit,
 * then checks its condition against what the first left, so two calls that each fit alone but
 * not together never both pass, whichever processes make them. No budget means no limit. A
 * worst case of null (a model with no price) cannot be held against a budget: refused where
 * there is one, recorded as 0 where there is none.
 */
export async function reserve(
  pool: pg.Pool,
  { memberId, runId, worstCaseUsd, models = [] }: { memberId: string; runId: string; worstCaseUsd: number | null; models?: string[] },
): Promise<Reservation> {
  if (worstCaseUsd !== null && !(Number.isFinite(worstCaseUsd) && worstCaseUsd >= 0))
    throw new TeamError('bad_input', `a worst case of ${worstCaseUsd} US dollars`);
  return inTransaction(pool, async (client) => {
    // now() is the transaction's start, so every statement here agrees on the period.
    const member = await client.query<{ period: Period; start: Date; resets: Date }>(
      `SELECT period, plm.period_start(period, now()) AS start, plm.period_end(period, now()) AS resets
       FROM plm.members WHERE id = $1 AND revoked_at IS NULL`,
      [memberId],
    );
    const found = member.rows[0];
    if (!found) throw new TeamError('no_such_member', `no member with id ${memberId} (or revoked)`);
    await client.query('INSERT INTO plm.budget_periods (member_id, period_start) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      memberId,
      found.start,
    ]);
    const reserved = await client.query(
      `UPDATE plm.budget_periods bp SET reserved_usd = bp.reserved_usd + COALESCE($3::numeric, 0)
       FROM plm.members m
       WHERE bp.member_id = $1 AND bp.period_start = $2 AND m.id = $1
         AND (m.budget_usd IS NULL OR bp.spent_usd + bp.reserved_usd + $3::numeric <= m.budget_usd)`,
      [memberId, found.start, worstCaseUsd],
    );
    if (reserved.rowCount === 1) {
      await client.query('INSERT INTO plm.runs (id, member_id, models, period_start, reserved_usd) VALUES ($1, $2, $3, $4, $5)', [
        runId,
        memberId,
        models,
        found.start,
        worstCaseUsd ?? 0,
      ]);
      return { ok: true, periodStart: found.start, resetsAt: found.resets };
    }
    const left = await client.query<{ budget: number; remaining: number }>(
      `SELECT m.budget_usd::float8 AS budget, GREATEST(m.budget_usd - bp.spent_usd - bp.reserved_usd, 0)::float8 AS remaining
       FROM plm.members m JOIN plm.budget_periods bp ON bp.member_id = m.id AND bp.period_start = $2 WHERE m.id = $1`,
      [memberId, found.start],
    );
    const { budget, remaining } = left.rows[0]!;
    return { ok: false, budgetUsd: budget, remainingUsd: remaining, period: found.period, resetsAt: found.resets, worstCaseUsd };
  });
}

/**
 * Turns a run's reservation into its actual cost, once: the run's row is marked settled in the
 * same transaction, so settling again (a replayed step, a second process) changes nothing.
 * Returns whether this call was the one that settled it.
 */
export async function settle(
  pool: pg.Pool,
  { runId, costUsd, tokens, status }: { runId: string; costUsd: number; tokens: number; status: string },
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const run = await client.query<{ member_id: string; period_start: Date; reserved_usd: string }>(
      `UPDATE plm.runs SET cost_usd = $2, tokens = $3, status = $4, settled_at = now()
       WHERE id = $1 AND settled_at IS NULL RETURNING member_id, period_start, reserved_usd`,
      [runId, costUsd, tokens, status],
    );
    const settled = run.rows[0];
    if (!settled) return false;
    await client.query(
      `UPDATE plm.budget_periods SET reserved_usd = reserved_usd - $3, spent_usd = spent_usd + $4
       WHERE member_id = $1 AND period_start = $2`,
      [settled.member_id, settled.period_start, settled.reserved_usd, costUsd],
    );
    return true;
  });
}

/**
 * Gives back the reservation of a run that never started (its claim went to another run), and
 * forgets the run: it was never asked for. False when there is no such unsettled run.
 */
export async function release(pool: pg.Pool, runId: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const run = await client.query<{ member_id: string; period_start: Date; reserved_usd: string }>(
      'DELETE FROM plm.runs WHERE id = $1 AND settled_at IS NULL RETURNING member_id, period_start, reserved_usd',
      [runId],
    );
    const released = run.rows[0];
    if (!released) return false;
    await client.query('UPDATE plm.budget_periods SET reserved_usd = reserved_usd - $3 WHERE member_id = $1 AND period_start = $2', [
      released.member_id,
      released.period_start,
      released.reserved_usd,
    ]);
    return true;
  });
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
