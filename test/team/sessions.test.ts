import { describe, expect, it } from 'vitest';
import { closeSession, findSession, learnClientLimit, openPool, openSession } from '../../packages/team/src/index.js';
import { membersDatabase } from './database.js';

const {
  url,
  pool,
  ids: { ann, bob },
} = await membersDatabase('ann', 'bob');

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

  it('keeps the shortest time limit the client showed, for its own member only', async () => {
    const id = await openSession(pool, ann, { protocolVersion: '2025-11-25' });
    expect((await findSession(pool, ann, id))!.clientLimitMs).toBeUndefined();
    await learnClientLimit(pool, ann, id, 1500.4);
    await learnClientLimit(pool, ann, id, 4000);
    await learnClientLimit(pool, bob, id, 10);
    expect((await findSession(pool, ann, id))!.clientLimitMs).toBe(1500);
    await learnClientLimit(pool, ann, id, 900);
    expect((await findSession(pool, ann, id))!.clientLimitMs).toBe(900);
  });
});
