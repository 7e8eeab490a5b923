import type { StoreDb } from './db.js';
import { RunStoreError } from './errors.js';
import { KEY, checkName } from './names.js';

/** Who pays for a request's run (src/store/store.ts's Claim). */
export interface Claim {
  run_id: string;
  owner: object;
  at: string;
}

/**
 * A member's claims of their requests, so a request started by several processes at once is paid
 * once: one plm.request_claims row per generation, and only one process can make generation n + 1
 * (the primary key), which takes over from the claimant of n. Generations are kept, never reused.
 */
export class PgClaims {
  constructor(
    private readonly db: StoreDb,
    private readonly memberId: string,
  ) {}

  async latest(key: string): Promise<{ generation: number; claim: Claim | undefined } | undefined> {
    checkName(key, KEY, 'request key');
    const { rows } = await this.db.query<{ generation: number; claim: unknown }>(
      `reading the claims of ${key}`,
      'SELECT generation, claim FROM plm.request_claims WHERE member_id = $1 AND request_key = $2 ORDER BY generation DESC LIMIT 1',
      [this.memberId, key],
    );
    const row = rows[0];
    return row && { generation: row.generation, claim: parseClaim(row.claim) };
  }

  /** True for the one caller that made generation `generation` (the loop around it: takeClaim, src/run/claiming.ts). */
  async claim(key: string, generation: number, claim: Claim): Promise<boolean> {
    checkName(key, KEY, 'request key');
    if (!Number.isSafeInteger(generation) || generation < 1 || generation > 2 ** 31 - 1)
      throw new RunStoreError('ERR_STORE_BAD_NAME', `not a valid generation: ${generation}`);
    const made = await this.db.query(
      `claiming ${key}`,
      `INSERT INTO plm.request_claims (member_id, request_key, generation, claim) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [this.memberId, key, generation, JSON.stringify(claim)],
    );
    return made.rowCount === 1;
  }
}

/** A claim not of our shape blocks nobody. */
function parseClaim(value: unknown): Claim | undefined {
  const { run_id, owner, at } = (value ?? {}) as Partial<Claim>;
  const plain = typeof owner === 'object' && owner !== null && !Array.isArray(owner);
  return typeof run_id === 'string' && typeof at === 'string' && plain ? { run_id, owner, at } : undefined;
}
