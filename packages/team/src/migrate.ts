import type pg from 'pg';
import { advisoryLock, onOwnConnection } from './database.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/** One key for every process that migrates this database; taken on a connection of its own. */
const LOCK = "hashtextextended('plm-migrate', 0)";

/** How long the migrations of processes starting at once may keep one waiting for its turn. */
const TURN_MS = 60_000;
/** One wait for the lock: a holder's CREATE INDEX CONCURRENTLY waits this long at most for each waiter. */
const SLICE = '250ms';

/**
 * Runs `work` on a connection of its own while holding the migration lock, so processes that
 * start at once take turns; the lock goes with the connection if this process dies. Also used
 * for the engine's schema (DBOS's), whose migrations create indexes CONCURRENTLY: such a
 * statement waits for every statement older than itself in the database, a waiter for this
 * lock included. So a waiter waits a quarter of a second at a time, never holding the holder up
 * for longer.
 */
export function underMigrationLock<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return onOwnConnection(
    () => pool.connect(),
    async (client, drop) => {
      try {
        await takeTurn(client);
        try {
          return await work(client);
        } finally {
          await client.query(`SELECT pg_advisory_unlock(${LOCK})`).catch(drop);
        }
      } catch (error) {
        // A connection that failed mid-way (a lock_timeout not reset, a lock not let go) is closed rather than reused.
        drop();
        throw error;
      }
    },
  );
}

async function takeTurn(client: pg.PoolClient): Promise<void> {
  const deadline = Date.now() + TURN_MS;
  await client.query(`SET lock_timeout = '${SLICE}'`);
  // Only a lock_timeout (55P03) ends a slice; anything else, or the turn's end, is an error.
  await advisoryLock(client, LOCK, [], (code) => code === '55P03' && Date.now() <= deadline);
  await client.query('RESET lock_timeout');
}

/**
 * Brings the database's schema up to date and returns the versions it applied. Every process
 * (each `serve --http` at start, each `users` and `usage`) calls this: under the migration
 * lock, the first applies what is missing and the rest find nothing to do.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return underMigrationLock(pool, async (client) => {
    await client.query('CREATE SCHEMA IF NOT EXISTS plm');
    await client.query(
      'CREATE TABLE IF NOT EXISTS plm.schema_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM plm.schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO plm.schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        // A connection that cannot roll back is not handed on: the unlock fails on it and it is closed.
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.version);
    }
    return applied;
  });
}
