import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { addMember, migrate, openPool } from '../../packages/team/src/index.js';

/**
 * A database of this test file's own in the project's test cluster, dropped when the file is
 * done: files run in parallel and never see each other's members or migrations.
 */
export async function testDatabase(): Promise<string> {
  const admin = new URL(inject('pgUrl'));
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(admin.toString(), `CREATE DATABASE ${name}`);
  afterAll(() => adminQuery(admin.toString(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A migrated database of this file's own with a member of each name: its URL, a pool on it (ended after the file) and each member's id. */
export async function membersDatabase<Name extends string>(...names: Name[]) {
  const url = await testDatabase();
  const pool = openPool(url);
  afterAll(() => pool.end());
  await migrate(pool);
  const ids = {} as Record<Name, string>;
  for (const name of names) {
    await addMember(pool, { name });
    ids[name] = (await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name])).rows[0]!.id;
  }
  return { url, pool, ids };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
