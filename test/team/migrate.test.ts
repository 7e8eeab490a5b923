import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, openPool, type Migration } from '../../packages/team/src/index.js';
import { underMigrationLock } from '../../packages/team/src/migrate.js';
import { testDatabase } from './database.js';

const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

async function freshPool(): Promise<pg.Pool> {
  const pool = openPool(await testDatabase());
  pools.push(pool);
  return pool;
}

const versions = async (pool: pg.Pool) =>
  (await pool.query<{ version: number }>('SELECT version FROM plm.schema_migrations ORDER BY version')).rows.map((row) => row.version);

describe('migrations', () => {
  it('survives its held connection being cut while other work runs under the lock, and lets the lock go with it', async () => {
    const url = await testDatabase();
    const [pool, other] = [openPool(url), openPool(url)];
    pools.push(pool, other);
    // The engine's own migrations run on other connections while this one only holds the lock, idle.
    await underMigrationLock(pool, async (client) => {
      const ended = new Promise((resolve) => client.once('end', resolve));
      const held = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await other.query('SELECT pg_terminate_backend($1)', [held.rows[0]!.pid]);
      await ended;
    });
    expect(await migrate(other)).toEqual(MIGRATIONS.map((migration) => migration.version));
  });

  it('applies every migration once, with its row, and nothing on a second start', async () => {
    const pool = await freshPool();
    expect(await migrate(pool)).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(await migrate(pool)).toEqual([]);
    expect(await versions(pool)).toEqual(MIGRATIONS.map((migration) => migration.version));
    await pool.query('SELECT id, name, token_hash, budget_usd, period FROM plm.members');
  });

  it('is safe when several processes start at once: one applies each migration, the rest find it done', async () => {
    const url = await testDatabase();
    // Each migrator has a pool of its own, as a separate process would: separate connections racing.
    const migrators = Array.from({ length: 6 }, () => openPool(url, { max: 2 }));
    pools.push(...migrators);
    const applied = await Promise.all(migrators.map((pool) => migrate(pool)));
    expect(applied.flat().sort()).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(await versions(migrators[0]!)).toEqual(MIGRATIONS.map((migration) => migration.version));
  });

  it('applies a later migration on the next start, in order', async () => {
    const pool = await freshPool();
    await migrate(pool);
    const later: Migration[] = [
      { version: 1001, name: 'second', sql: 'ALTER TABLE plm.later ADD COLUMN b int' },
      { version: 1000, name: 'first', sql: 'CREATE TABLE plm.later (a int)' },
    ];
    expect(await migrate(pool, [...MIGRATIONS, ...later])).toEqual([1000, 1001]);
    await pool.query('SELECT a, b FROM plm.later');
  });

  it('rolls a failing migration back whole, records nothing for it, and lets the next start try again', async () => {
    const pool = await freshPool();
    await migrate(pool);
    const broken: Migration = { version: 1000, name: 'broken', sql: 'CREATE TABLE plm.half (a int); SELECT no_such_column FROM plm.half' };
    await expect(migrate(pool, [...MIGRATIONS, broken])).rejects.toThrow(/migration 1000 \(broken\) failed: .*no_such_column/);
    expect(await versions(pool)).not.toContain(1000);
    expect((await pool.query("SELECT to_regclass('plm.half') AS t")).rows[0].t).toBeNull();
    // The lock was let go: another migrator gets it at once.
    const fixed: Migration = { ...broken, sql: 'CREATE TABLE plm.half (a int)' };
    expect(await migrate(pool, [...MIGRATIONS, fixed])).toEqual([1000]);
  });
});
