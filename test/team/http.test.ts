import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, migrate, openPool } from '../../packages/team/src/index.js';
import type { StructuredResult } from '../../src/present/output-schema.js';
import { startFakeOpenRouter, VALID_KEY, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { pricing } from '../support/price-rows.js';
import { waitFor, within } from '../support/wait.js';
import { testDatabase } from './database.js';
import { startServe, stopAllServes, type ServeProcess } from './serve-process.js';

const MODELS = ['team/one', 'team/two'];
const SYNTH = 'team/synth';
/** A dollar per million tokens: a worst case of a few thousandths of a dollar at max_tokens 1000. */
const PRICE = pricing('0.000001', '0.000001');

let fake: FakeOpenRouter;
let pool: pg.Pool;
let env: Record<string, string>;
/** Two processes sharing one database (and, until runs live in Postgres, one output folder). */
let one: ServeProcess;
let two: ServeProcess;
const clients: Client[] = [];

beforeAll(async () => {
  fake = await startFakeOpenRouter({
    prices: Object.fromEntries([...MODELS, SYNTH].map((model) => [model, PRICE])),
    keepAliveCommentMs: 50,
  });
  fake.on('team/one', { fromRequest: (request) => ({ answer: `one says ${lastWords(request.body)}`, delayMs: slowness(request.body) }) });
  fake.on('team/two', { answer: 'two says so' });
  fake.on(SYNTH, { answer: 'the synthesis' });
  const url = await testDatabase();
  pool = openPool(url);
  await migrate(pool);
  env = {
    PARALLEL_LLM_DATABASE_URL: url,
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: await tempDir('plm-team-runs-'),
    PARALLEL_LLM_MODELS: MODELS.join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: SYNTH,
    PARALLEL_LLM_MAX_TOKENS: '1000',
    PARALLEL_LLM_LOG_LEVEL: 'debug',
  };
  [one, two] = await Promise.all([startServe(env), startServe(env)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await stopAllServes();
  await pool?.end();
  await fake?.close();
});

/** The prompt's last word, so an answer shows which request it was for. */
function lastWords(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ content: string }>;
  return messages.at(-1)!.content.split(/\s+/).at(-1)!;
}

/** A prompt that says "slow" is answered after 1.5 s, "stoppable" after 20 s: a run still going when something else happens. */
function slowness(body: Record<string, unknown>): number {
  const prompt = JSON.stringify(body.messages);
  return prompt.includes('stoppable') ? 20_000 : prompt.includes('slow') ? 1_500 : 20;
}

async function member(name: string, budgetUsd: number | null = null): Promise<{ id: string; token: string }> {
  const { token } = await addMember(pool, { name, budgetUsd });
  const id = (await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name])).rows[0]!.id;
  return { id, token };
}

/** The SDK's client over Streamable HTTP with a bearer token; with `sessionId`, it carries on a session opened elsewhere. */
async function connect(
  serve: ServeProcess,
  token: string,
  options: { sessionId?: string; capabilities?: Record<string, unknown>; name?: string } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${serve.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  const client = new Client({ name: options.name ?? 'team-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const ask = async (client: Client, args: Record<string, unknown>) =>
  (await within(20_000, client.callTool({ name: 'process_prompt', arguments: args }))) as CallToolResult;
const getRun = async (client: Client, runId: string) =>
  (await within(20_000, client.callTool({ name: 'get_run', arguments: { run_id: runId } }))) as CallToolResult;
/** process_prompt as a task: its id at once, and how to read the rest of its stream, so the call ends. */
async function startTask(client: Client, prompt: string): Promise<{ taskId: string; drained: () => Promise<void> }> {
  const stream = client.experimental.tasks.callToolStream({ name: 'process_prompt', arguments: { prompt } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  const first = await within(10_000, stream.next());
  const drained = async () => {
    for await (const _ of stream) {
      // Read to its end.
    }
  };
  return { taskId: (first.value as { task: { taskId: string } }).task.taskId, drained };
}
const data = (result: CallToolResult) => result.structuredContent as unknown as StructuredResult;
const resultText = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describe('MCP over Streamable HTTP, any process serving any request of a session', () => {
  it('initializes on one process; process_prompt and get_run on the other; get_run back on the first', async () => {
    const ann = await member('ann');
    const { transport } = await connect(one, ann.token);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const { client: elsewhere } = await connect(two, ann.token, { sessionId: transport.sessionId! });
    const asked = await ask(elsewhere, { prompt: 'what is it, first' });
    expect(asked.isError).toBeFalsy();
    expect(data(asked)).toMatchObject({ status: 'complete', answer: 'the synthesis', joined: 'new' });
    const again = await getRun(elsewhere, data(asked).run_id);
    expect(data(again)).toMatchObject({ status: 'complete', run_id: data(asked).run_id });
    const { client: back } = await connect(one, ann.token, { sessionId: transport.sessionId! });
    expect(data(await getRun(back, data(asked).run_id))).toMatchObject({ status: 'complete', answer: 'the synthesis' });
  });

  it('a task made on one process is followed and read as done from the other', async () => {
    const ann = await member('ann-tasks');
    const { client, transport } = await connect(one, ann.token, { capabilities: { tasks: {} } });
    const { taskId, drained } = await startTask(client, 'a task, slow');
    const { client: other } = await connect(two, ann.token, { sessionId: transport.sessionId! });
    expect((await other.experimental.tasks.getTask(taskId)).status).toBe('working');
    await waitFor(async () => (await other.experimental.tasks.getTask(taskId)).status === 'completed', 15_000);
    const result = (await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(data(result)).toMatchObject({ status: 'complete', run_id: taskId, answer: 'the synthesis' });
    await drained();
  });

  it('tasks/cancel on one process stops the run the other executes; another member’s cancel finds no such task', async () => {
    const ann = await member('ann-cancel');
    const bob = await member('bob-cancel');
    const { client, transport } = await connect(one, ann.token, { capabilities: { tasks: {} } });
    const { taskId, drained } = await startTask(client, 'a stoppable task');
    await waitFor(() => chatRequests('a stoppable task').some((request) => request.model === 'team/one'), 10_000);
    const { client: bobs } = await connect(two, bob.token);
    await expect(bobs.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/not found|No task/i);
    const { client: other } = await connect(two, ann.token, { sessionId: transport.sessionId! });
    const aborted = fake.aborted;
    expect((await within(10_000, other.experimental.tasks.cancelTask(taskId))).status).toBe('cancelled');
    expect(fake.aborted).toBeGreaterThan(aborted);
    const result = (await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(data(result).status).toBe('cancelled');
    await drained();
  });

  it('a user’s stop of a plain call, sent in a request of its own to the other process, stops the run that call is waiting on', async () => {
    const ann = await member('ann-stop');
    const { client, transport } = await connect(one, ann.token);
    const session = { 'Mcp-Session-Id': transport.sessionId!, 'Mcp-Protocol-Version': '2025-11-25' };
    const call = new AbortController();
    const calling = fetch(`${one.base}/mcp`, {
      method: 'POST',
      headers: { ...headersOf(ann.token), ...session },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'stop-me',
        method: 'tools/call',
        params: { name: 'process_prompt', arguments: { prompt: 'a stoppable call' } },
      }),
      signal: call.signal,
    }).catch(() => undefined);
    await waitFor(() => chatRequests('a stoppable call').some((request) => request.model === 'team/one'), 10_000);
    const aborted = fake.aborted;
    const stop = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'stop-me', reason: 'the user pressed stop' } };
    expect((await post(two, ann.token, stop, session)).status).toBe(202);
    await waitFor(() => fake.aborted > aborted, 10_000);
    const [run] = (await client.listResources()).resources;
    expect(data(await getRun(client, run!.name)).status).toBe('cancelled');
    call.abort();
    await calling;
  });

  it('keeps what the client said at initialize for every later request: an MCP App client sees the run page’s tool on the other process', async () => {
    const ann = await member('ann-app');
    const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };
    const { client, transport } = await connect(one, ann.token, { capabilities: apps });
    const { client: other } = await connect(two, ann.token, { sessionId: transport.sessionId! });
    expect((await other.listTools()).tools.map((tool) => tool.name)).toContain('get_run_page');
    const { client: plain } = await connect(two, ann.token);
    expect((await plain.listTools()).tools.map((tool) => tool.name)).not.toContain('get_run_page');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_run_page');
  });
});

describe('sessions', () => {
  it('another member’s session, an unknown one and a closed one are 404; no session is 400; DELETE closes it', async () => {
    const ann = await member('ann-sessions');
    const bob = await member('bob-sessions');
    const { transport } = await connect(one, ann.token);
    const sessionId = transport.sessionId!;
    const list = (token: string, headers: Record<string, string> = {}) =>
      post(two, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect((await list(ann.token, { 'Mcp-Session-Id': sessionId })).status).toBe(200);
    const others = await list(bob.token, { 'Mcp-Session-Id': sessionId });
    const unknown = await list(bob.token, { 'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000' });
    expect([others.status, others.body]).toEqual([unknown.status, unknown.body]);
    expect(others.status).toBe(404);
    expect((await list(ann.token)).status).toBe(400);
    const deleted = await fetch(`${two.base}/mcp`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${ann.token}`, 'Mcp-Session-Id': sessionId },
    });
    expect(deleted.status).toBe(200);
    expect((await list(ann.token, { 'Mcp-Session-Id': sessionId })).status).toBe(404);
  });

  it('answers GET 405: no server-sent stream, which the SDK client takes in its stride', async () => {
    const ann = await member('ann-get');
    const reply = await fetch(`${one.base}/mcp`, {
      headers: { Authorization: `Bearer ${ann.token}`, Accept: 'text/event-stream' },
    });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST, DELETE');
  });
});

/** The headers a client's POST to /mcp carries. */
const headersOf = (token: string) => ({
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});

/** A raw POST to /mcp as a client sends it. */
async function post(serve: ServeProcess, token: string, body: unknown, headers: Record<string, string> = {}) {
  const reply = await fetch(`${serve.base}/mcp`, {
    method: 'POST',
    headers: { ...headersOf(token), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.text() };
}

const chatRequests = (word: string) => fake.requests.filter((request) => JSON.stringify(request.body.messages).includes(word));
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

/** An initialize request as a client's first POST carries it. */
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};

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
});

describe('malformed HTTP', () => {
  it('malformed JSON, a wrong content type, a body over 4 MiB (announced or not) get the transport’s 400, 415, 413, and open no session', async () => {
    const jo = await member('jo');
    const sessions = async () => (await pool.query('SELECT 1 FROM plm.mcp_sessions WHERE member_id = $1', [jo.id])).rowCount;
    expect((await post(one, jo.token, JSON.stringify(initialize).slice(0, 60))).status).toBe(400);
    expect((await post(one, jo.token, JSON.stringify(initialize), { 'Content-Type': 'text/plain' })).status).toBe(415);
    const huge = JSON.stringify({
      ...initialize,
      params: { ...initialize.params, clientInfo: { name: 'x'.repeat(5 * 1024 * 1024), version: '1' } },
    });
    expect((await post(one, jo.token, huge)).status).toBe(413);
    const chunked = await fetch(`${one.base}/mcp`, {
      method: 'POST',
      headers: headersOf(jo.token),
      body: new Blob([huge]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await sessions()).toBe(0);
    expect((await post(one, jo.token, initialize)).status).toBe(200);
    expect(await sessions()).toBe(1);
  });
});

describe('stopping', () => {
  it('SIGTERM drains: new calls get 503 with Retry-After, the run going on finishes and is answered, then the process exits', async () => {
    const three = await startServe(env);
    const kay = await member('kay');
    const { client } = await connect(three, kay.token);
    const asking = ask(client, { prompt: 'drain kay, slow' });
    await waitFor(() => chatRequests('drain kay').length > 0, 10_000);
    three.child.kill('SIGTERM');
    await waitFor(() => three.stderr().includes('taking no new call'), 10_000);
    const refused = await post(three, kay.token, initialize);
    expect(refused.status).toBe(503);
    expect(data(await asking)).toMatchObject({ status: 'complete', answer: 'the synthesis' });
    expect(await three.stop()).toBe(0);
  });
});
