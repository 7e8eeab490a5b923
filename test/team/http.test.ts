import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { waitFor, within } from '../support/wait.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { data, getRun, headersOf, INITIALIZE, post, startTask, startTeamServers, ask, type TeamServers } from './team-servers.js';

/** MCP over Streamable HTTP with its sessions in Postgres: two serve --http processes, one database. */
let team: TeamServers;
let one: ServeProcess;
let two: ServeProcess;
let fake: FakeOpenRouter;
let pool: pg.Pool;
let env: Record<string, string>;
const member = (name: string, budgetUsd: number | null = null) => team.member(name, budgetUsd);
const connect: TeamServers['connect'] = (serve, token, options) => team.connect(serve, token, options);
const chatRequests = (word: string) => team.chatRequests(word);

beforeAll(async () => {
  team = await startTeamServers();
  ({ one, two, fake, pool, env } = team);
}, 60_000);
afterAll(() => team?.close());

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

  it('shows a run’s page with every model’s answer, read from the team database on another process than the one that ran it', async () => {
    const ann = await member('ann-page');
    const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };
    const { client, transport } = await connect(one, ann.token, { capabilities: apps });
    const asked = data(await ask(client, { prompt: 'what is on the page' }));
    expect(asked.status).toBe('complete');
    const { client: other } = await connect(two, ann.token, { sessionId: transport.sessionId! });
    const page = (await within(20_000, other.callTool({ name: 'get_run_page', arguments: { run_id: asked.run_id } }))) as CallToolResult;
    expect(page.isError).toBeFalsy();
    expect(page.structuredContent).toMatchObject({ answer: 'the synthesis', answers: ['one says page', 'two says so'] });
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

describe('malformed HTTP', () => {
  it('malformed JSON, a wrong content type, a body over 4 MiB (announced or not) get the transport’s 400, 415, 413, and open no session', async () => {
    const jo = await member('jo');
    const sessions = async () => (await pool.query('SELECT 1 FROM plm.mcp_sessions WHERE member_id = $1', [jo.id])).rowCount;
    expect((await post(one, jo.token, JSON.stringify(INITIALIZE).slice(0, 60))).status).toBe(400);
    expect((await post(one, jo.token, JSON.stringify(INITIALIZE), { 'Content-Type': 'text/plain' })).status).toBe(415);
    const huge = JSON.stringify({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, clientInfo: { name: 'x'.repeat(5 * 1024 * 1024), version: '1' } },
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
    expect((await post(one, jo.token, INITIALIZE)).status).toBe(200);
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
    const refused = await post(three, kay.token, INITIALIZE);
    expect(refused.status).toBe(503);
    expect(data(await asking)).toMatchObject({ status: 'complete', answer: 'the synthesis' });
    expect(await three.stop()).toBe(0);
  });
});
