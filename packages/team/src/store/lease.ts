import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { closeClient, EXECUTOR_LOCK } from '../database.js';
import type { StoreDb } from './db.js';
import { checkName } from './names.js';

/** An instance id as the run code makes it. */
const INSTANCE = /^[0-9a-f]{8,48}$/;

/** How long a lease outlives its last run, so calls made one after another keep their lock. */
const LINGER_MS = 10_000;
/** After a lost connection or a refused lock, the wait before the locks are taken again, doubling to the cap. */
const RETRY_MS = { first: 500, max: 10_000 };

/** The start of the name of a connection that holds leases, so a peer can tell it from someone else holding an instance's lock. */
const HOLDER_PREFIX = 'plm-leases:';

/** Per pool, the one connection of this process that holds its instances' leases. */
const holders = new WeakMap<pg.Pool, LeaseHolder>();

/**
 * The connection holding the leases of every instance on `pool` in this process (the members'
 * runs of a server), made with `config` the first time. One connection for them all, since each
 * connection costs the server a process of its own to start.
 */
export function leaseHolder(pool: pg.Pool, config: pg.ClientConfig): LeaseHolder {
  let holder = holders.get(pool);
  if (!holder) {
    holder = new LeaseHolder({ ...config, application_name: HOLDER_PREFIX + randomBytes(8).toString('hex') });
    holders.set(pool, holder);
  }
  return holder;
}

/**
 * Liveness through Postgres: while it holds runs, an instance holds a session advisory lock on
 * the lease holder's connection. The server lets the lock go the moment that connection ends, at
 * once on kill -9 (the kernel closes the socket) and within seconds when a machine is lost (the
 * keepalives of its config), so another process sees the instance's runs as ownerless without
 * waiting out a lease.
 */
export class PgLease {
  private held = 0;
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly holder: LeaseHolder,
    private readonly instance: string,
    private readonly lingerMs = LINGER_MS,
  ) {
    checkName(instance, INSTANCE, 'instance id');
  }

  hold(settled: Promise<unknown>): void {
    clearTimeout(this.lingering);
    if (this.held++ === 0) void this.holder.take(this.instance);
    const release = () => {
      if (--this.held === 0) {
        this.lingering = setTimeout(() => void this.holder.let(this.instance), this.lingerMs);
        this.lingering.unref();
      }
    };
    void settled.then(release, release);
  }

  /** Lets the lock go now; resolves once it is let go. */
  stop(): Promise<void> {
    clearTimeout(this.lingering);
    return this.holder.let(this.instance);
  }
}

/**
 * One connection holding the locks of the instances whose lease is wanted: opened for the first,
 * closed once none is. A lost connection, or a lock held elsewhere (a peer took it when this
 * instance was thought dead), is tried again later, less often each time.
 */
export class LeaseHolder {
  private readonly wanted = new Set<string>();
  /** The instances whose lock the connection holds now. */
  private readonly locked = new Set<string>();
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS.first;
  /** In order, so that closing never races a connection being opened. */
  private steps: Promise<void> = Promise.resolve();

  constructor(private readonly config: pg.ClientConfig) {}

  take(instance: string): Promise<void> {
    this.wanted.add(instance);
    return this.step(() => this.sync());
  }

  let(instance: string): Promise<void> {
    this.wanted.delete(instance);
    return this.step(() => this.sync());
  }

  /** The locks held made to match the leases wanted; a failure is dropped, to be tried again. */
  private async sync(): Promise<void> {
    if (this.wanted.size === 0) {
      clearTimeout(this.retry);
      this.retry = undefined;
      return this.close();
    }
    try {
      const client = this.client ?? (await this.open());
      for (const instance of [...this.locked].filter((held) => !this.wanted.has(held))) {
        await client.query(`SELECT pg_advisory_unlock(${EXECUTOR_LOCK})`, [instance]);
        this.locked.delete(instance);
      }
      let refused = false;
      for (const instance of [...this.wanted].filter((wanted) => !this.locked.has(wanted))) {
        const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${EXECUTOR_LOCK}) AS locked`, [instance]);
        if (rows[0]?.locked) this.locked.add(instance);
        else refused = true;
      }
      if (refused) this.again();
      else this.retryMs = RETRY_MS.first;
    } catch {
      await this.close();
      this.again();
    }
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on('error', () => undefined);
    client.on('end', () => this.lost(client));
    this.client = client;
    await client.connect();
    return client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.locked.clear();
    this.again();
  }

  private again(): void {
    if (this.wanted.size === 0 || this.retry) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(delay * 2, RETRY_MS.max);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.step(() => this.sync());
    }, delay);
    this.retry.unref();
  }

  /** Ending the session lets every lock on it go. */
  private async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.locked.clear();
    if (client) await closeClient(client, this.config.connectionTimeoutMillis ?? 3_000);
  }

  private step(work: () => Promise<void>): Promise<void> {
    this.steps = this.steps.then(work).catch(() => undefined);
    return this.steps;
  }
}

/**
 * Whether `instance` holds its lease now: its lock is granted to a lease holder's connection (a
 * peer that took the lock after the instance died, to fence it off, does not count). One that
 * cannot be read counts as held, since taking a live run over would pay twice.
 */
export async function leaseHeld(db: StoreDb, instance: string): Promise<boolean> {
  if (!INSTANCE.test(instance)) return false;
  const held = db.query<{ held: boolean }>(
    `reading the lease of ${instance}`,
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::bigint = (${EXECUTOR_LOCK} >> 32) & 4294967295 AND l.objid::bigint = ${EXECUTOR_LOCK} & 4294967295
         AND starts_with(a.application_name, $2)
     ) AS held`,
    [instance, HOLDER_PREFIX],
  );
  return held.then(
    ({ rows }) => rows[0]?.held === true,
    () => true,
  );
}
