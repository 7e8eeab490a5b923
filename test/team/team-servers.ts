import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type pg from 'pg';
import { addMember, migrate, openPool } from '../../packages/team/src/index.js';
import type { StructuredResult } from '../../src/present/output-schema.js';
import { startFakeOpenRouter, VALID_KEY, type FakeOpenRouter, type RecordedRequest } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { pricing } from '../support/price-rows.js';
import { within } from '../support/wait.js';
import { testDatabase } from './database.js';
import { startServe, stopAllServes, type ServeProcess } from './serve-process.js';

const MODELS = ['team/one', 'team/two'];
const SYNTH = 'team/synth';
/** A dollar per million tokens: a worst case of a few thousandths of a dollar at max_tokens 1000. */
const PRICE = pricing('0.000001', '0.000001');

/** Two `serve --http` processes sharing one database (and, until runs live in Postgres, one output folder), before a fake OpenRouter. */
export interface TeamServers {
  fake: FakeOpenRouter;
  pool: pg.Pool;
  /** The processes' environment, to start another like them. */
  env: Record<string, string>;
  one: ServeProcess;
  two: ServeProcess;
  /** A new member; their id and token. */
  member(name: string, budgetUsd?: number | null): Promise<{ id: string; token: string }>;
  /** The SDK's client over Streamable HTTP with a bearer token; with `sessionId`, it carries on a session opened elsewhere. */
  connect(
    serve: ServeProcess,
    token: string,
    options?: { sessionId?: string; capabilities?: Record<string, unknown> },
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  /** The chat requests the fake received whose messages mention `word`. */
  chatRequests(word: string): RecordedRequest[];
  close(): Promise<void>;
}

/**
 * team/one answers with the prompt's last word, after 20 ms, 1.5 s for a prompt that says
 * "slow" and 20 s for one that says "stoppable" (a run still going when something else happens);
 * team/two and the synthesizer answer at once.
 */
export async function startTeamServers(): Promise<TeamServers> {
  const fake = await startFakeOpenRouter({
    prices: Object.fromEntries([...MODELS, SYNTH].map((model) => [model, PRICE])),
    keepAliveCommentMs: 50,
  });
  fake.on('team/one', { fromRequest: (request) => ({ answer: `one says ${lastWord(request.body)}`, delayMs: slowness(request.body) }) });
  fake.on('team/two', { answer: 'two says so' });
  fake.on(SYNTH, { answer: 'the synthesis' });
  const url = await testDatabase();
  const pool = openPool(url);
  await migrate(pool);
  const env = {
    PARALLEL_LLM_DATABASE_URL: url,
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: await tempDir('plm-team-runs-'),
    PARALLEL_LLM_MODELS: MODELS.join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: SYNTH,
    PARALLEL_LLM_MAX_TOKENS: '1000',
    PARALLEL_LLM_LOG_LEVEL: 'debug',
  };
  const [one, two] = await Promise.all([startServe(env), startServe(env)]);
  const clients: Client[] = [];
  return {
    fake,
    pool,
    env,
    one: one!,
    two: two!,
    async member(name, budgetUsd = null) {
      const { token } = await addMember(pool, { name, budgetUsd });
      const id = (await pool.query<{ id: string }>('SELECT id::text FROM plm.members WHERE name = $1', [name])).rows[0]!.id;
      return { id, token };
    },
    async connect(serve, token, options = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(`${serve.base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      });
      const client = new Client({ name: 'team-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    },
    chatRequests: (word) => fake.requests.filter((request) => JSON.stringify(request.body.messages).includes(word)),
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await stopAllServes();
      await pool.end();
      await fake.close();
    },
  };
}

function lastWord(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ content: string }>;
  return messages.at(-1)!.content.split(/\s+/).at(-1)!;
}

function slowness(body: Record<string, unknown>): number {
  const prompt = JSON.stringify(body.messages);
  return prompt.includes('stoppable') ? 20_000 : prompt.includes('slow') ? 1_500 : 20;
}

export const ask = async (client: Client, args: Record<string, unknown>) =>
  (await within(20_000, client.callTool({ name: 'process_prompt', arguments: args }))) as CallToolResult;

export const getRun = async (client: Client, runId: string) =>
  (await within(20_000, client.callTool({ name: 'get_run', arguments: { run_id: runId } }))) as CallToolResult;

/** process_prompt as a task: its id at once, and how to read the rest of its stream, so the call ends. */
export async function startTask(client: Client, prompt: string): Promise<{ taskId: string; drained: () => Promise<void> }> {
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

export const data = (result: CallToolResult) => result.structuredContent as unknown as StructuredResult;
export const resultText = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

/** The headers a client's POST to /mcp carries. */
export const headersOf = (token: string) => ({
  Authorization: `Bearer ${token}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
});

/** A raw POST to /mcp as a client sends it. */
export async function post(serve: ServeProcess, token: string, body: unknown, headers: Record<string, string> = {}) {
  const reply = await fetch(`${serve.base}/mcp`, {
    method: 'POST',
    headers: { ...headersOf(token), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.text() };
}

/** An initialize request as a client's first POST carries it. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};
