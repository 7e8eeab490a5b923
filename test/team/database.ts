import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';

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

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
