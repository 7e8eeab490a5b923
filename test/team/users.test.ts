import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberByToken, openPool } from '../../packages/team/src/index.js';
import { cli } from './cli.js';
import { testDatabase } from './database.js';

let url: string;
let pool: pg.Pool;
beforeAll(async () => {
  url = await testDatabase();
  pool = openPool(url);
});
afterAll(() => pool.end());

const users = (...args: string[]) => cli(['users', ...args], { PARALLEL_LLM_DATABASE_URL: url });

describe('users, on a real database through the real command', () => {
  it('add prints a token once, stores only its sha256, and the token names the member; several at once on a new database all apply the migrations safely', async () => {
    const fresh = await testDatabase();
    const added = await Promise.all(
      ['ann', 'bob', 'cy'].map((name) => cli(['users', 'add', name, '--json'], { PARALLEL_LLM_DATABASE_URL: fresh })),
    );
    expect(added.map((ran) => [ran.code, ran.stderr])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);
    const tokens = added.map((ran) => JSON.parse(ran.stdout) as { name: string; token: string });
    expect(tokens.map((printed) => Object.keys(printed))).toEqual([
      ['name', 'token'],
      ['name', 'token'],
      ['name', 'token'],
    ]);
    const freshPool = openPool(fresh);
    try {
      const stored = await freshPool.query('SELECT name, token_hash, row_to_json(m)::text AS whole FROM plm.members m ORDER BY name');
      expect(stored.rows.map((row) => row.name)).toEqual(['ann', 'bob', 'cy']);
      for (const [index, { token }] of tokens.entries()) {
        expect(stored.rows[index].token_hash).toEqual(createHash('sha256').update(token).digest());
        expect(stored.rows.some((row) => row.whole.includes(token))).toBe(false);
      }
      expect(await memberByToken(freshPool, tokens[1]!.token)).toMatchObject({ name: 'bob' });
      expect(await memberByToken(freshPool, `${tokens[1]!.token}x`)).toBeUndefined();
    } finally {
      await freshPool.end();
    }
  });

  it('add, set, list and revoke in words and as the JSON the spec gives', async () => {
    const plain = await users('add', 'dana', '--budget-usd', '5', '--period', 'week');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Added dana, with a budget of \$5\.00 a week\. .*shown this once.*\nplm_[\w-]{43}\n$/);
    expect((await users('add', 'eve')).code).toBe(0);

    const set = await users('set', 'eve', '--budget-usd', '2.5', '--period', 'day', '--json');
    expect(JSON.parse(set.stdout)).toEqual({ name: 'eve', budget_usd: 2.5, period: 'day', spent_usd: 0, reserved_usd: 0, runs: 0 });
    expect((await users('set', 'dana', '--budget-usd', 'none')).stdout).toBe('dana now has no budget.\n');

    const list = await users('list', '--json');
    expect(JSON.parse(list.stdout)).toEqual([
      { name: 'dana', budget_usd: null, period: 'week', spent_usd: 0, reserved_usd: 0, runs: 0 },
      { name: 'eve', budget_usd: 2.5, period: 'day', spent_usd: 0, reserved_usd: 0, runs: 0 },
    ]);
    expect((await users('list')).stdout).toBe(
      [
        'NAME  BUDGET  PERIOD  SPENT  RESERVED  RUNS',
        'dana  none    week    $0.00  $0.00     0',
        'eve   $2.50   day     $0.00  $0.00     0',
        '',
      ].join('\n'),
    );

    const revoked = await users('revoke', 'dana', '--json');
    expect(Object.keys(JSON.parse(revoked.stdout))).toEqual(['name', 'revoked_at']);
    expect(JSON.parse((await users('list', '--json')).stdout).map((member: { name: string }) => member.name)).toEqual(['eve']);
  });

  it('refuses a second member of the same name, and an unknown or revoked one, with exit 1 and one line', async () => {
    expect((await users('add', 'finn')).code).toBe(0);
    const again = await users('add', 'finn');
    expect([again.code, again.stderr]).toEqual([
      1,
      'parallel-llm-mcp users: a member named finn exists already (revoked members keep their name)\n',
    ]);
    expect((await users('revoke', 'finn')).code).toBe(0);
    const gone = await users('set', 'finn', '--budget-usd', '1');
    expect([gone.code, gone.stderr]).toEqual([1, 'parallel-llm-mcp users: no member named finn (or revoked)\n']);
  });

  it.each([
    ['users', '--help'],
    ['users', 'add', '--help'],
    ['usage', '--help'],
  ])('%j prints its help without a database', async (...args) => {
    const ran = await cli(args);
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    expect(ran.stdout).toMatch(/^Usage: parallel-llm-mcp (users add NAME|usage)/);
  });

  it.each([
    [['add'], 'users add: needs a NAME'],
    [['add', 'a', 'b'], 'users add: takes one NAME, not 2'],
    [['add', 'a', '--budget-usd', 'lots'], 'users add: --budget-usd takes a number of US dollars, not "lots"'],
    [['add', 'a', '--period', 'year'], 'users add: --period takes day, week or month, not "year"'],
    [['set', 'a'], 'users set: needs --budget-usd N (or none)'],
    [['list', '--period', 'day'], 'users list: unknown option "--period"'],
    [['promote', 'a'], 'users: unknown action "promote": add, list, set or revoke'],
  ])('users %j is a usage error (exit 2) before any database is needed', async (args, message) => {
    const ran = await cli(['users', ...args]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`parallel-llm-mcp ${message}`);
  });

  it('says what to set when PARALLEL_LLM_DATABASE_URL is missing, and that the database does not answer when it is down, at once', async () => {
    const missing = await cli(['users', 'list']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^parallel-llm-mcp users: PARALLEL_LLM_DATABASE_URL is not set: .*postgres:\/\/USER/);
    // A port nothing listens on: the connection is refused, and the password never shown.
    const started = Date.now();
    const down = await cli(['usage'], { PARALLEL_LLM_DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/db' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^parallel-llm-mcp usage: the database at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db does not answer .*is Postgres running there\?\n$/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('gives up on a database that accepts the connection but never answers, within its connect limit', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const started = Date.now();
      const ran = await cli(['users', 'list'], { PARALLEL_LLM_DATABASE_URL: `postgres://u@127.0.0.1:${port}/db` });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(/^parallel-llm-mcp users: the database at .* does not answer \(.*timeout.*\)/);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
