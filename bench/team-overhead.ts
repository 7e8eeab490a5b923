/**
 * Team mode against local mode, on the same fake OpenRouter (two candidates and a synthesizer
 * answering after 20 ms). First, short calls one after another, taking turns: a local stdio
 * server, and two `serve --http` processes in turn over Streamable HTTP with a bearer token,
 * runs in Postgres and the engine; the figure is the difference of medians. Then 10 members x
 * 3 calls at once over the two `serve --http` processes against the same 30 calls at once on
 * the local server: all must complete, no model asked twice for a prompt, and the wall times
 * compared. Each server process answers a call before anything is timed (its code loaded, its
 * prices fetched), and each has answered about as many as the other before the 30.
 * `npm run build && node --import tsx bench/team-overhead.ts [CALLS]` (20 by default): both
 * modes run dist/bin.js, the build users run, with the team package's own build; needs Debian's
 * postgresql (as the team tests do). Saves bench/results/team-overhead.json.
 */
import path from 'node:path';
import { access } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { addMember, migrate, openPool } from '../packages/team/src/index.js';
import { startPostgres } from '../test/team/postgres.js';
import { pricing } from '../test/support/price-rows.js';
import { connect, freshPrompt, median, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';
import { spawn, type ChildProcess } from 'node:child_process';

const CALLS = Number(process.argv[2] ?? 20);
const MODELS = ['t/one', 't/two'];
const SYNTH = 't/synth';

const fake = await startFakeOpenRouter({ prices: Object.fromEntries([...MODELS, SYNTH].map((m) => [m, pricing('0.000001', '0.000001')])) });
for (const model of [...MODELS, SYNTH]) fake.on(model, { answer: `${model} says 4`, delayMs: 20 });
const bin = path.join(import.meta.dirname, '..', 'dist', 'bin.js');
await access(bin).catch(() => {
  throw new Error('no dist/bin.js: npm run build first');
});
const postgres = await startPostgres();
const children: ChildProcess[] = [];
const clients: Client[] = [];
try {
  const pool = openPool(postgres.url);
  await migrate(pool);
  const env = {
    ...serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: MODELS.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: SYNTH }),
    PARALLEL_LLM_DATABASE_URL: postgres.url,
    PARALLEL_LLM_MAX_TOKENS: '1000',
  };
  const local = await connect({ command: process.execPath, args: [bin] }, env);
  const bases = await Promise.all([serve(env), serve(env)]);
  const members = await Promise.all(
    Array.from({ length: 10 }, (_, i) => addMember(pool, { name: `bench-${i}`, budgetUsd: null }).then(({ token }) => token)),
  );
  const teamClient = (i: number) => httpClient(bases[i % 2]!, members[i]!);
  // The short calls go to each process in turn, as a load balancer would send them.
  const shorts = [await teamClient(0), await teamClient(1)];

  const call = async (client: Client, prompt: string) => {
    const result = (await client.callTool({ name: 'process_prompt', arguments: { prompt } }, undefined, {
      timeout: 120_000,
    })) as CallToolResult;
    const status = (result.structuredContent as { status?: string } | undefined)?.status;
    if (status !== 'complete') throw new Error(`a call ended ${status}: ${JSON.stringify(result.content).slice(0, 300)}`);
  };
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };

  // Warm every server process (code loaded, prices fetched, connections open), then take turns.
  await call(local.client, freshPrompt('warm'));
  for (const short of shorts) await call(short, freshPrompt('warm'));
  const localMs: number[] = [];
  const teamMs: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    localMs.push(await timed(() => call(local.client, freshPrompt('short local'))));
    teamMs.push(await timed(() => call(shorts[i % 2]!, freshPrompt('short team'))));
  }

  const many = Array.from({ length: 30 }, (_, i) => ({ member: i % 10, prompt: freshPrompt(`many ${i}`) }));
  const localWall = await timed(() => Promise.all(many.map(({ prompt }) => call(local.client, `local ${prompt}`))));
  const teamClients = await Promise.all(members.map((_, i) => teamClient(i)));
  const teamWall = await timed(() => Promise.all(many.map(({ member, prompt }) => call(teamClients[member]!, `team ${prompt}`))));
  const asked = new Map<string, number>();
  for (const request of fake.requests) {
    const text = JSON.stringify(request.body.messages);
    if (!text.includes('team many')) continue;
    const key = `${request.model} ${/team many \d+ [\d-]+/.exec(text)?.[0]}`;
    asked.set(key, (asked.get(key) ?? 0) + 1);
  }
  const askedTwice = [...asked.values()].filter((count) => count > 1).length;
  const overheadMs = median(teamMs) - median(localMs);
  await report('team-overhead', {
    calls: CALLS,
    shortCall: { localMedianMs: round(median(localMs)), teamMedianMs: round(median(teamMs)), overheadMs: round(overheadMs) },
    target: 'overhead <= 20 ms; 30 calls at once: all complete, none asked twice, team wall <= 1.5x local',
    concurrent: {
      calls: 30,
      members: 10,
      processes: 2,
      localWallMs: round(localWall),
      teamWallMs: round(teamWall),
      ratio: round(teamWall / localWall, 2),
      askedTwice,
    },
    met: overheadMs <= 20 && askedTwice === 0 && teamWall <= 1.5 * localWall,
  });
  await local.close();
  await pool.end();
} finally {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  await fake.close();
  await postgres.remove();
}

/** A `serve --http` process on a free port; its base URL. */
async function serve(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [bin, 'serve', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    // Read as an MCP client reads a server's stderr: the last part kept, the rest let go.
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-64 * 1024);
      if (listening) return;
      const base = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)?.[1];
      if (base) {
        listening = true;
        clearTimeout(limit);
        resolve(base);
      }
    });
    child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
}

async function httpClient(base: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
