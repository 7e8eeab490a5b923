import pg from 'pg';
import type { StoreDb } from './db.js';
import { checkName } from './names.js';

/** An instance id as the run code makes it; short enough to name its connection (63 bytes at most). */
const INSTANCE = /^[0-9a-f]{8,48}$/;

/** The lock an instance holds for as long as its lease: the same key any peer of the engine watches. */
const KEY_SQL = "hashtextextended('plm-exec:' || $1, 0)";

/** How long a lease outlives its last run, so calls made one after another keep one connection. */
const LINGER_MS = 10_000;
/** After a lost connection, the wait before the lock is taken again, doubling to the cap. */
const RETRY_MS = { first: 500, max: 10_000 };

/** The connection that holds a lease, named so a peer can tell its holder from someone else holding its lock. */
export const leaseConnectionName = (instance: string) => `plm-live:${instance}`;

/**
 * Liveness through Postgres: while it holds runs, an instance holds a session advisory lock on a
 * connection of its own. The server lets the lock go the moment that connection ends, at once on
 * kill -9 (the kernel closes the socket) and within seconds when a machine is lost (the keepalives
 * below), so another process sees the instance's runs as ownerless without waiting out a lease.
 */
export class PgLease {
  private held = 0;
  private client: pg.Client | undefined;
  private lingering: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS.first;
  /** In order, so that closing never races a connection being opened. */
  private steps: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly instance: string,
    private readonly lingerMs = LINGER_MS,
  ) {
    checkName(instance, INSTANCE, 'instance id');
  }

  hold(settled: Promise<unknown>): void {
    clearTimeout(this.lingering);
    if (this.held++ === 0) this.step(() => this.open());
    const release = () => {
      if (--this.held === 0) {
        this.lingering = setTimeout(() => void this.stop(), this.lingerMs);
        this.lingering.unref();
      }
    };
    void settled.then(release, release);
  }

  stop(): Promise<void> {
    clearTimeout(this.lingering);
    clearTimeout(this.retry);
    return this.step(() => this.close());
  }

  /** A failure is dropped: the next try (after a lost connection) or the next hold tries again. */
  private async open(): Promise<void> {
    if (this.client || this.held === 0) return;
    const client = new pg.Client(this.config);
    client.on('error', () => undefined);
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${KEY_SQL}) AS locked`, [this.instance]);
      // Held elsewhere: a peer took it when this instance was thought dead; it is tried again later.
      if (!rows[0]?.locked) throw new Error('the lease lock is held by another session');
      this.retryMs = RETRY_MS.first;
    } catch {
      await this.close();
      this.again();
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.again();
  }

  private again(): void {
    if (this.held === 0 || this.retry) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(delay * 2, RETRY_MS.max);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.step(() => this.open());
    }, delay);
    this.retry.unref();
  }

  /** Ending the session lets the lock go. */
  private async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    const ending = client.end().catch(() => undefined);
    const limit = new Promise<void>((resolve) => setTimeout(resolve, this.config.connectionTimeoutMillis ?? 3_000).unref());
    await Promise.race([ending, limit]);
  }

  private step(work: () => Promise<void>): Promise<void> {
    this.steps = this.steps.then(work).catch(() => undefined);
    return this.steps;
  }
}

/**
 * Whether `instance` holds its lease now: its lock is granted to its own connection (a peer that
 * took the lock after the instance died, to fence it off, does not count). One that cannot be
 * read counts as held, since taking a live run over would pay twice.
 */
export async function leaseHeld(db: StoreDb, instance: string): Promise<boolean> {
  if (!INSTANCE.test(instance)) return false;
  const held = db.query<{ held: boolean }>(
    `reading the lease of ${instance}`,
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::bigint = (${KEY_SQL} >> 32) & 4294967295 AND l.objid::bigint = ${KEY_SQL} & 4294967295
         AND a.application_name = $2
     ) AS held`,
    [instance, leaseConnectionName(instance)],
  );
  return held.then(
    ({ rows }) => rows[0]?.held === true,
    () => true,
  );
}
