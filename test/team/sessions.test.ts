import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, closeSession, findSession, migrate, openPool, openSession } from '../../packages/team/src/index.js';
import { testDatabase } from './database.js';

let url: string;
let pool: pg.Pool;
let ann: string;
let bob: string;

const memberId = async (name: string) => {
  await addMember(pool, { name });
  return (await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name])).rows[0]!.id;
};

beforeAll(async () => {
  url = await testDatabase();
  pool = openPool(url);
  await migrate(pool);
  ann = await memberId('ann');
  bob = await memberId('bob');
});
afterAll(() => pool.end());

describe('MCP sessions in Postgres', () => {
  it('any process finds a session by its id, with what initialize negotiated', async () => {
    const capabilities = { elicitation: {}, tasks: { requests: { tools: { call: {} } } } };
    const clientInfo = { name: 'claude-code', version: '2.1.0' };
    const id = await openSession(pool, ann, { protocolVersion: '2025-11-25', clientCapabilities: capabilities, clientInfo });
    const elsewhere = openPool(url, { max: 1 });
    try {
      expect(await findSession(elsewhere, ann, id)).toEqual({
        id,
        protocolVersion: '2025-11-25',
        clientCapabilities: capabilities,
        clientInfo,
      });
    } finally {
      await elsewhere.end();
    }
  });

  it('another member’s session answers exactly as one that does not exist, and cannot be closed by them', async () => {
    const id = await openSession(pool, ann, { protocolVersion: '2025-11-25' });
    expect(await findSession(pool, bob, id)).toBeUndefined();
    expect(await findSession(pool, bob, '00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await closeSession(pool, bob, id)).toBe(false);
    expect(await findSession(pool, ann, id)).toBeDefined();
  });

  it('a closed session, or an id that is not a UUID, is not found', async () => {
    const id = await openSession(pool, ann, { protocolVersion: '2025-11-25' });
    expect(await closeSession(pool, ann, id)).toBe(true);
    expect(await closeSession(pool, ann, id)).toBe(false);
    expect(await findSession(pool, ann, id)).toBeUndefined();
    expect(await findSession(pool, ann, "x'; DROP TABLE plm.members; --")).toBeUndefined();
  });
});
