import type pg from 'pg';
import { MIGRATIONS, type Migration } from './migrations.js';

/** One key for every process that migrates this database; taken on a connection of its own. */
const LOCK_SQL = "SELECT pg_advisory_lock(hashtextextended('plm-migrate', 0))";
const UNLOCK_SQL = "SELECT pg_advisory_unlock(hashtextextended('plm-migrate', 0))";

/**
 * Brings the database's schema up to date and returns the versions it applied. Every process
 * (each `serve --http` at start, each `users` and `usage`) calls this: the advisory lock makes
 * them take turns, so the first applies what is missing and the rest find nothing to do. The
 * lock's wait is bounded by the pool's lock_timeout; the lock goes with the connection if this
 * process dies.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(LOCK_SQL);
    try {
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
          await client.query('ROLLBACK').catch(() => (broken = true));
          throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.version);
      }
      return applied;
    } finally {
      await client.query(UNLOCK_SQL).catch(() => (broken = true));
    }
  } finally {
    // A connection that could not unlock is closed, which lets the lock go with it.
    client.release(broken);
  }
}
