import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALID_KEY, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { waitFor } from '../support/wait.js';
import type { ServeProcess } from './serve-process.js';
import { ask, data, getRun, resultText, startTeamServers, type TeamServers } from './team-servers.js';

/** Each member's calls over HTTP: held against their budget, settled to what they cost, and seen by nobody else. */
let team: TeamServers;
let one: ServeProcess;
let two: ServeProcess;
let fake: FakeOpenRouter;
let pool: pg.Pool;
const member = (name: string, budgetUsd: number | null = null) => team.member(name, budgetUsd);
const connect: TeamServers['connect'] = (serve, token, options) => team.connect(serve, token, options);
const chatRequests = (word: string) => team.chatRequests(word);

beforeAll(async () => {
  team = await startTeamServers();
  ({ one, two, fake, pool } = team);
}, 60_000);
afterAll(() => team?.close());

const runRow = async (runId: string) =>
  (
    await pool.query<{ reserved: number; cost: number | null; status: string; settled: boolean }>(
      'SELECT reserved_usd::float8 AS reserved, cost_usd::float8 AS cost, status, settled_at IS NOT NULL AS settled FROM plm.runs WHERE id = $1',
      [runId],
    )
  ).rows[0];
const period = async (memberId: string) =>
  (
    await pool.query<{ spent: number; reserved: number }>(
      'SELECT spent_usd::float8 AS spent, reserved_usd::float8 AS reserved FROM plm.budget_periods WHERE member_id = $1',
      [memberId],
    )
  ).rows[0];

describe('budgets per call', () => {
  it('refuses a call whose worst case the budget cannot hold, before any request, saying what remains and when it resets', async () => {
    const dee = await member('dee', 0.001);
    const { client } = await connect(one, dee.token);
    const refused = await ask(client, { prompt: 'too dear for dee' });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(
      /^Refused before any request: over budget: \$0\.0010 of \$0\.0010 remains this month, and this call may cost up to \$0\.\d{4}; the budget resets at \d{4}-\d\d-01T00:00:00\.000Z\.$/,
    );
    expect(chatRequests('dee')).toEqual([]);
    expect((await pool.query('SELECT 1 FROM plm.runs WHERE member_id = $1', [dee.id])).rowCount).toBe(0);
  });

  it('holds the worst case while the run goes on, and settles it to the run’s actual cost once it ends', async () => {
    const eve = await member('eve', 5);
    const { client } = await connect(one, eve.token);
    const asking = ask(client, { prompt: 'for eve, slow' });
    await waitFor(() => chatRequests('for eve').length > 0, 10_000);
    const held = await period(eve.id);
    expect(held!.reserved).toBeGreaterThan(0);
    const result = data(await asking);
    expect(result.status).toBe('complete');
    expect(held!.reserved).toBeCloseTo(result.worst_case!.total_usd, 6);
    await waitFor(async () => (await period(eve.id))!.reserved === 0, 10_000);
    const cost = result.totals.cost!;
    expect(cost).toBeGreaterThan(0);
    expect((await period(eve.id))!.spent).toBeCloseTo(cost, 6);
    expect(await runRow(result.run_id)).toMatchObject({ status: 'complete', settled: true });
    expect((await runRow(result.run_id))!.cost).toBeCloseTo(cost, 6);
  });

  it('a settlement whose first attempt loses its connection is tried again by the engine, and settles once', async () => {
    const kit = await member('kit', 5);
    const { client } = await connect(one, kit.token);
    const asking = ask(client, { prompt: 'kit settles, slow' });
    await waitFor(() => chatRequests('kit settles').length > 0, 10_000);
    // The member's period row is held, so the settlement's first attempt waits on it; then its connection is ended.
    const holder = await pool.connect();
    let result: Awaited<ReturnType<typeof data>>;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM plm.budget_periods WHERE member_id = $1 FOR UPDATE', [kit.id]);
      result = data(await asking);
      let settling: number | undefined;
      await waitFor(async () => {
        const { rows } = await pool.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE plm.budget_periods%spent_usd = bp.spent_usd +%'",
        );
        settling = rows[0]?.pid;
        return settling !== undefined;
      }, 10_000);
      await pool.query('SELECT pg_terminate_backend($1)', [settling]);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(result.status).toBe('complete');
    await waitFor(async () => (await period(kit.id))!.reserved === 0, 15_000);
    expect(await period(kit.id)).toEqual({ spent: expect.closeTo(result.totals.cost!, 6), reserved: 0 });
    expect(await runRow(result.run_id)).toMatchObject({ status: 'complete', settled: true });
    // DBOS's own line for a step it tries again.
    expect(one.stderr()).toContain('Error in step being automatically retried. Attempt 1 of 10');
  });

  it('of two calls on two processes that each fit the budget alone but not together, one is refused', async () => {
    const probe = await member('fred-probe');
    const worst = data(await ask((await connect(one, probe.token)).client, { prompt: 'fred asks' })).worst_case!.total_usd;
    const fred = await member('fred', worst * 1.5);
    const [a, b] = await Promise.all([
      ask((await connect(one, fred.token)).client, { prompt: 'fred asks' }),
      ask((await connect(two, fred.token)).client, { prompt: 'fred asks, again' }),
    ]);
    expect([a, b].filter((result) => result.isError).map(resultText)).toEqual([expect.stringMatching(/over budget/)]);
  });

  it('the same request again, on the other process, joins its run: nothing asked twice, nothing held twice', async () => {
    const lou = await member('lou', 5);
    const first = data(await ask((await connect(one, lou.token)).client, { prompt: 'lou asks once' }));
    const again = data(await ask((await connect(two, lou.token)).client, { prompt: 'lou asks once' }));
    expect([again.run_id, again.joined]).toEqual([first.run_id, 'attached']);
    expect(chatRequests('lou asks once').filter((request) => request.model === 'team/one')).toHaveLength(1);
    expect((await pool.query('SELECT 1 FROM plm.runs WHERE member_id = $1', [lou.id])).rowCount).toBe(1);
    await waitFor(async () => (await period(lou.id))!.reserved === 0, 10_000);
    expect((await period(lou.id))!.spent).toBeCloseTo(first.totals.cost!, 6);
  });
});

describe('isolation between members', () => {
  it('another member’s run id answers exactly as an id that names nothing; the same request from two members makes two runs', async () => {
    const gil = await member('gil');
    const hal = await member('hal');
    const gils = data(await ask((await connect(one, gil.token)).client, { prompt: 'the shared question' }));
    const { client: halClient } = await connect(two, hal.token);
    const hals = data(await ask(halClient, { prompt: 'the shared question' }));
    expect(hals.joined).toBe('new');
    expect(hals.run_id).not.toBe(gils.run_id);
    expect(chatRequests('the shared question').filter((request) => request.model === 'team/one')).toHaveLength(2);
    const nobody = gils.run_id.replace(/_[0-9a-f]+$/, '_0000abcd');
    const theirs = await getRun(halClient, gils.run_id);
    const none = await getRun(halClient, nobody);
    expect(theirs.isError).toBe(true);
    expect(resultText(theirs).replaceAll(gils.run_id, 'ID')).toBe(resultText(none).replaceAll(nobody, 'ID'));
    const task = await halClient.experimental.tasks.getTask(gils.run_id).catch((error: Error) => error.message);
    const noTask = await halClient.experimental.tasks.getTask(nobody).catch((error: Error) => error.message);
    expect(String(task).replaceAll(gils.run_id, 'ID')).toBe(String(noTask).replaceAll(nobody, 'ID'));
  });

  it('the server’s key reaches no member: not in a result, even when upstream quotes it, nor in the log', async () => {
    fake.on('team/leaky', {
      fromRequest: (request) => ({ status: 400, error: { message: `bad request with ${request.headers.authorization}` } }),
    });
    const ivy = await member('ivy');
    const result = await ask((await connect(two, ivy.token)).client, { prompt: 'leak it', models: ['team/leaky', 'team/two'] });
    expect(chatRequests('leak it').some((request) => request.model === 'team/leaky')).toBe(true);
    expect(JSON.stringify(result)).toContain('bad request with Bearer');
    expect(JSON.stringify(result)).not.toContain(VALID_KEY);
    expect(one.stderr() + two.stderr()).not.toContain(VALID_KEY);
  });

  it('a prompt holding the server’s key, whole or its start, is refused before any request, hold or run, and the key is shown nowhere', async () => {
    const jo = await member('jo', 5);
    const { client } = await connect(one, jo.token);
    expect(data(await ask(client, { prompt: 'jo asks first' })).status).toBe('complete');
    await waitFor(async () => (await period(jo.id))!.reserved === 0, 10_000);
    const before = await period(jo.id);
    const whole = await ask(client, { prompt: `jo pastes it: ${VALID_KEY}` });
    const start = await ask(client, { prompt: `jo pastes the start of it: ${VALID_KEY.slice(0, 14)}` });
    for (const refused of [whole, start]) {
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toBe(
        'Refused before any request: the prompt contains the server’s OpenRouter API key (or the start of it), which must never be sent to the models: remove it and call again.',
      );
    }
    expect(chatRequests('jo pastes')).toEqual([]);
    expect((await pool.query('SELECT 1 FROM plm.runs WHERE member_id = $1', [jo.id])).rowCount).toBe(1);
    expect(await period(jo.id)).toEqual(before);
    const keyStart = VALID_KEY.slice(0, 12);
    expect(JSON.stringify([whole, start])).not.toContain(keyStart);
    expect(one.stderr() + two.stderr()).not.toContain(keyStart);
  });
});
