import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { dedicatedClient } from './connection.js';
import { closeClient, EXECUTOR_LOCK } from '../database.js';
import { TeamError } from '../errors.js';

/** A live process's liveness connection is named this, then its executor id (pg_stat_activity). */
const LIVE_PREFIX = 'plm-live:';
/** The channel on which a starting process announces its executor id. */
const CHANNEL = 'plm_exec';
/** How long a liveness statement may take before this process counts its hold as lost. */
const CONFIRM_MS = 5_000;

/** A name this process alone will ever use: host, pid and randomness, short enough for application_name's 63 bytes. */
export function newExecutorId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9.-]/g, '')
      .slice(0, 30) || 'host';
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

const USABLE_ID = /^[A-Za-z0-9._:-]{1,54}$/;

/**
 * This process's hold on the database: a session advisory lock on its executor id, on a
 * connection of its own, for its whole life. Peers wait on that lock; the server lets it go
 * when this process dies or is cut off, which is how they learn of it. The same connection
 * hears the peers that start later.
 */
export class Liveness {
  #released = false;
  #confirming: Promise<void> | undefined;
  #lost: (error: Error) => void = () => undefined;

  private constructor(
    private readonly client: pg.Client,
    readonly executorId: string,
  ) {}

  /**
   * Takes the lock for `executorId` (refused if anyone holds it: ids are never reused), then
   * names the connection so peers find it, and listens for peers that start later. `onLost`
   * is called once if the connection ends without `release`; `onPeer` with each announced id.
   */
  static async hold(
    url: string,
    executorId: string,
    events: { onLost: (error: Error) => void; onPeer: (peerId: string) => void },
  ): Promise<Liveness> {
    if (!USABLE_ID.test(executorId))
      throw new TeamError('bad_executor_id', `executor id ${JSON.stringify(executorId)} is not 1 to 54 of A-Z a-z 0-9 . _ : -`);
    // Named only once it holds the lock, so a peer that finds the name always finds the lock held.
    const client = dedicatedClient(url, 'plm-starting', CONFIRM_MS);
    try {
      await client.connect();
      const { rows } = await client.query<{ held: boolean }>(`SELECT pg_try_advisory_lock(${EXECUTOR_LOCK}) AS held`, [executorId]);
      if (!rows[0]?.held) throw new TeamError('bad_executor_id', `executor id ${executorId} is held by a live process`);
      await client.query("SELECT set_config('application_name', $1, false)", [LIVE_PREFIX + executorId]);
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await closeClient(client);
      throw error;
    }
    const liveness = new Liveness(client, executorId);
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload && message.payload !== executorId) events.onPeer(message.payload);
    });
    let reported = false;
    liveness.#lost = (error: Error) => {
      if (liveness.#released || reported) return;
      reported = true;
      events.onLost(error);
    };
    client.on('error', (error) => liveness.#lost(error));
    client.on('end', () => liveness.#lost(new Error('the liveness connection ended')));
    return liveness;
  }

  /** Tells the processes already running that this one has started (they watch it from then on). */
  async announce(): Promise<void> {
    await this.client.query('SELECT pg_notify($1, $2)', [CHANNEL, this.executorId]);
  }

  /** The executor ids of the other live processes on this database. */
  async peers(): Promise<string[]> {
    const { rows } = await this.client.query<{ id: string }>(
      `SELECT DISTINCT substr(application_name, length($1) + 1) AS id FROM pg_stat_activity
        WHERE datname = current_database() AND starts_with(application_name, $1) AND pid <> pg_backend_pid()`,
      [LIVE_PREFIX],
    );
    return rows.map((row) => row.id).filter((id) => id !== this.executorId);
  }

  /**
   * Resolves if the lock is still held (its connection answers), and rejects otherwise: asked
   * before each step, so a process cut off from the database starts no work it may no longer
   * own; a failure counts as the hold lost. Concurrent callers share one round trip.
   */
  confirm(): Promise<void> {
    this.#confirming ??= this.client
      .query('SELECT 1')
      .then(
        () => undefined,
        (error: Error) => {
          this.#lost(error);
          throw error;
        },
      )
      .finally(() => (this.#confirming = undefined));
    return this.#confirming;
  }

  /** Lets the lock go (by closing its connection): the peers take over what this process left. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await closeClient(this.client);
  }
}
