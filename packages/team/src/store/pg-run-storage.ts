import type pg from 'pg';
import { KEEPALIVES } from '../database.js';
import { PgClaims, type Claim } from './claims.js';
import { DEFAULT_OP_MS, StoreDb } from './db.js';
import { PgLease, leaseHeld, leaseHolder } from './lease.js';
import { RUN_ID, checkName } from './names.js';
import { PgRunPlace, type Origin } from './place.js';
import { RunStoreError } from './errors.js';
import type { Batching } from './text-writer.js';

export interface PgRunStorageOptions {
  /** The limit of each step on the database (a connection, a statement), in ms. */
  opMs?: number;
  batching?: Batching;
  /** How long a lease outlives its last run, in ms. */
  leaseLingerMs?: number;
}

/** A member, as the store shows and scopes them. */
export interface StoreMember {
  id: string;
  name: string;
}

/** An unfinished text untouched this long was left by a killed writer: no answer streams for an hour without a chunk. */
const STALE_TEXT = '1 hour';

/**
 * The run store of team mode (src/store/store.ts's RunStorage, implemented structurally: this
 * package imports nothing of the main one). It is made per member, and every statement names the
 * member, so another member's run is absent by construction: it answers as a run that does not exist.
 */
export class PgRunStorage {
  readonly rootDir: string;
  /** The database, as shown: a run's place is shown under it. */
  private readonly where: string;
  private readonly db: StoreDb;
  private readonly claims: PgClaims;
  private swept = false;

  constructor(
    readonly pool: pg.Pool,
    private readonly member: StoreMember,
    private readonly options: PgRunStorageOptions = {},
  ) {
    this.db = new StoreDb(pool, options.opMs ?? DEFAULT_OP_MS);
    this.claims = new PgClaims(this.db, member.id);
    this.where = databaseShown(pool.options);
    this.rootDir = `${this.where} (member ${member.name})`;
  }

  /** Rejects if the id is taken. A run row the budget made first for this member, with no place yet, becomes the place. */
  async createRun(id: string): Promise<PgRunPlace> {
    checkName(id, RUN_ID, 'run id');
    const { rows } = await this.db.query<{ made: boolean }>(
      `creating run ${id}`,
      `INSERT INTO plm.runs (id, member_id, period_start, reserved_usd, stored_at)
         SELECT $1, id, plm.period_start(period, now()), 0, now() FROM plm.members WHERE id = $2
       ON CONFLICT (id) DO UPDATE SET stored_at = now() WHERE plm.runs.member_id = EXCLUDED.member_id AND plm.runs.stored_at IS NULL
       RETURNING (xmax = 0) AS made`,
      [id, this.member.id],
    );
    const row = rows[0];
    if (!row) throw new RunStoreError('ERR_STORE_UNSAFE', `run ${id} exists already (or member ${this.member.name} does not)`);
    await this.sweepOnce();
    return this.place(id, row.made ? 'made' : 'adopted');
  }

  /** Undefined when `id` is not a run id, or names no run of this member's. */
  async openRun(id: string): Promise<PgRunPlace | undefined> {
    if (!RUN_ID.test(id)) return undefined;
    const found = await this.db.query(
      `opening run ${id}`,
      'SELECT 1 FROM plm.runs WHERE id = $1 AND member_id = $2 AND stored_at IS NOT NULL',
      [id, this.member.id],
    );
    return found.rowCount === 1 ? this.place(id, 'opened') : undefined;
  }

  /** The newest run ids, newest first (run ids sort by time). */
  async listRuns(limit: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'listing runs',
      `SELECT id FROM plm.runs WHERE member_id = $1 AND stored_at IS NOT NULL ORDER BY id COLLATE "C" DESC LIMIT $2`,
      [this.member.id, Math.max(0, Math.floor(limit))],
    );
    return rows.map((row) => row.id);
  }

  latestClaim(key: string): Promise<{ generation: number; claim: Claim | undefined } | undefined> {
    return this.claims.latest(key);
  }

  makeClaim(key: string, generation: number, claim: Claim): Promise<boolean> {
    return this.claims.claim(key, generation, claim);
  }

  /** A lease on the connection that holds the leases of every instance on this pool in this process. */
  lease(instance: string): PgLease {
    const config: pg.ClientConfig = {
      ...this.pool.options,
      connectionTimeoutMillis: this.db.opMs,
      query_timeout: this.db.opMs,
      statement_timeout: this.db.opMs,
      // The server notices a lost machine within about 15 s and lets its lock go.
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      options: [this.pool.options.options, ...KEEPALIVES.map((setting) => `-c ${setting}`)].filter(Boolean).join(' '),
    };
    return new PgLease(leaseHolder(this.pool, config), instance, this.options.leaseLingerMs);
  }

  /** Whether `instance` holds its lease now; the age does not matter, so `maxAgeMs` is not used. */
  leaseFresh(instance: string, _maxAgeMs?: number): Promise<boolean> {
    return leaseHeld(this.db, instance);
  }

  private place(id: string, origin: Origin): PgRunPlace {
    return new PgRunPlace(id, this.db, this.member.id, this.where, origin, { batching: this.options.batching });
  }

  /** Housekeeping that must never cost a call its run: texts whose writer was killed midway. */
  private async sweepOnce(): Promise<void> {
    if (this.swept) return;
    this.swept = true;
    await this.db
      .query(
        'removing unfinished texts',
        `DELETE FROM plm.run_files f USING plm.runs r
         WHERE f.run_id = r.id AND r.member_id = $1 AND NOT f.complete AND f.updated_at < now() - $2::interval`,
        [this.member.id, STALE_TEXT],
      )
      .catch(() => undefined);
  }
}

/** postgres://HOST:PORT/DATABASE, with no user or password. */
function databaseShown(config: pg.PoolConfig): string {
  try {
    if (config.connectionString) {
      const url = new URL(config.connectionString);
      return `postgres://${url.host}${url.pathname}`;
    }
  } catch {
    // Shown from the other fields below.
  }
  return `postgres://${config.host ?? 'localhost'}:${config.port ?? 5432}/${config.database ?? ''}`;
}
