import type pg from 'pg';
import { afterAll } from 'vitest';
import { addMember, migrate, openPool, PgRunStorage, type PgRunStorageOptions } from '../../packages/team/src/index.js';
import { testDatabase } from './database.js';

/** A migrated database of the test file's own, with members `ann` and `bob`, closed when the file is done. */
export async function storeDatabase() {
  const url = await testDatabase();
  const pools: pg.Pool[] = [];
  const pool = (at = url) => {
    const made = openPool(at, { max: 4 });
    pools.push(made);
    return made;
  };
  afterAll(() => Promise.all(pools.map((made) => made.end().catch(() => undefined))));
  const main = pool();
  await migrate(main);
  const member = async (name: string) => {
    await addMember(main, { name });
    const { rows } = await main.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name]);
    return { id: rows[0]!.id, name };
  };
  const ann = await member('ann');
  const bob = await member('bob');
  /** A member's store on a pool of its own (`at`: another way to the database, such as a proxy). */
  const store = (who = ann, options: PgRunStorageOptions = {}, at = url) => new PgRunStorage(pool(at), who, options);
  return { url, pool: main, ann, bob, member, store, newPool: pool };
}
