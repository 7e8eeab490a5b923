import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUNTIME_FLAGS } from '../../src/host/runtime-flags.js';
import type { StructuredResult } from '../../src/present/output-schema.js';
import { agreeingSynthesizer } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { alive, hostsUnder } from '../support/hosts.js';
import { callTool, connect, finished, processPrompt, spawnBin, userEnv, waitFor, type Session } from './support.js';

/**
 * Runs outlive calls and the server processes that start them, through the installed bin: the
 * runs execute in the per-user run host, so whatever ends a server (the SDK's close, a fresh
 * server per call, any signal, kill -9) ends no run, and nothing is paid twice.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 100 });

afterAll(() => fake.close());

/** The original's timings at 1/10 scale: candidates 0.6-9.8 s, synthesis 4.5 s. */
const SCALED = [600, 2100, 4400, 7300, 9800];

function models(prefix: string, delaysMs: number[], synthesisMs: number) {
  const ids = delaysMs.map((_, i) => `${prefix}/m${i + 1}`);
  for (const [i, id] of ids.entries()) fake.on(id, { answer: `answer of ${id}`, delayMs: delaysMs[i] });
  fake.on(`${prefix}/synth`, agreeingSynthesizer(`the synthesis of ${ids.length} answers`, { delayMs: synthesisMs }));
  const asked = () => [...ids, `${prefix}/synth`].map((id) => fake.requestsFor(id).length);
  return { ids, asked, env: { PARALLEL_LLM_MODELS: ids.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` } };
}

const journal = async (folder: string) => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
const runFolders = async (outputDir: string) =>
  (await readdir(outputDir)).filter((name) => !name.startsWith('.')).map((name) => path.join(outputDir, name));

/** Follows a run with get_run from a new server, as the next session of a client would. */
async function collectFromNewServer(env: Record<string, string>, runId: string): Promise<StructuredResult> {
  const reader = await connect(env);
  try {
    let data = (await callTool(reader, 'get_run', { run_id: runId })).data!;
    for (let poll = 1; data.status === 'running' && poll < 10; poll++)
      data = (await callTool(reader, 'get_run', { run_id: runId, poll })).data!;
    return data;
  } finally {
    await reader.close();
  }
}

describe('a client with a 6 s limit, at 1/10 of the original’s latencies', () => {
  it('gets the complete synthesis of all five candidates in at most 3 calls, each answered in time, with 5 candidate requests and 1 synthesis', async () => {
    const { asked, env } = models('scaled', SCALED, 4500);
    const session = await connect(userEnv(fake, await tempDir(), { ...env, PARALLEL_LLM_BUDGET_MS: '5500' }));
    const calls: Array<{ ms: number; data: StructuredResult }> = [];
    const timed = async (call: () => ReturnType<typeof callTool>) => {
      const started = Date.now();
      const { data } = await call();
      calls.push({ ms: Date.now() - started, data: data! });
      return data!;
    };
    // The SDK's own timeout stands for the client's limit: a late answer would reject.
    let data = await timed(() => processPrompt(session, { prompt: 'Review this design.' }, { timeout: 6000 }));
    while (data.status === 'running' && calls.length < 5) {
      const next = data.next_call!;
      data = await timed(() => callTool(session, next.tool, next.arguments, { timeout: 6000 }));
    }
    expect(data).toMatchObject({ status: 'complete', answer: 'the synthesis of 5 answers' });
    expect(data.models.map((model) => model.status)).toEqual(Array(5).fill('answered'));
    expect(calls.length).toBeLessThanOrEqual(3);
    for (const call of calls) expect(call.ms).toBeLessThan(6000);
    expect(asked()).toEqual([1, 1, 1, 1, 1, 1]);
    expect(calls[0]!.data.models.filter((model) => model.status === 'answered').length).toBeGreaterThanOrEqual(2);
    await session.close();
  }, 40_000);
});

/** Every way a client ends its server, as clients really do it. */
const ENDINGS: Array<[string, (session: Session) => Promise<void>]> = [
  // The SDK's close(): stdin ends, SIGTERM after 2 s, SIGKILL after 2 more.
  ['the SDK client closes it', (session) => session.close()],
  // Claude Code at the end of a session: SIGINT, SIGTERM 100 ms later, then SIGKILL.
  [
    'SIGINT, SIGTERM, SIGKILL in a row',
    async (session) => {
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
        if (alive(session.pid)) process.kill(session.pid, signal);
        // Real time: the gap such a client leaves between its signals.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  ],
  ['SIGTERM', async (session) => void process.kill(session.pid, 'SIGTERM')],
  ['SIGHUP', async (session) => void process.kill(session.pid, 'SIGHUP')],
  ['kill -9', async (session) => void process.kill(session.pid, 'SIGKILL')],
];

describe('a run outlives its server process', () => {
  it.each(ENDINGS)(
    'goes on when %s mid-run; the next server collects it, every model asked once',
    async (ending, end) => {
      const { asked, env } = models(`ending-${ending.replace(/\W+/g, '-')}`, [50, 1200], 50);
      const outputDir = await tempDir();
      const session = await connect(userEnv(fake, outputDir, { ...env, PARALLEL_LLM_BUDGET_MS: '300' }));
      const { data } = await processPrompt(session, { prompt: 'q' });
      expect(data!.status).toBe('running');
      await end(session);
      await waitFor(() => !alive(session.pid), 6000);
      await session.close();
      const final = await collectFromNewServer(userEnv(fake, outputDir, env), data!.run_id);
      expect(final).toMatchObject({ status: 'complete', answer: 'the synthesis of 2 answers' });
      expect(asked()).toEqual([1, 1, 1]);
    },
    20_000,
  );

  it('finishes with a fresh server for every tool call (as LangChain’s adapters work), paying the slow model once', async () => {
    const { asked, env } = models('fresh-server', [50, 1500], 50);
    const serverEnv = userEnv(fake, await tempDir(), { ...env, PARALLEL_LLM_BUDGET_MS: '400' });
    const rounds: StructuredResult[] = [];
    while (rounds.at(-1)?.status !== 'complete' && rounds.length < 10) {
      const session = await connect(serverEnv);
      rounds.push((await processPrompt(session, { prompt: 'the same question' })).data!);
      await session.close();
    }
    expect(rounds.at(-1)).toMatchObject({ status: 'complete', answer: 'the synthesis of 2 answers' });
    expect(rounds.slice(1).every((round) => round.joined === 'attached')).toBe(true);
    expect(rounds.at(-1)!.new_cost).toBe(0);
    expect(asked()).toEqual([1, 1, 1]);
  }, 30_000);

  it('lets the server exit at once when its client goes away, while the run finishes in the host', async () => {
    const { asked, env } = models('orphan', [100, 1200], 100);
    const outputDir = await tempDir();
    const child = spawnBin([], userEnv(fake, outputDir, env));
    const exit = finished(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'process_prompt', arguments: { prompt: 'q' } } });
    await waitFor(() => fake.requestsFor('orphan/m2').length === 1);
    child.stdin.end();
    const { code, ms } = await exit;
    expect(code).toBe(0);
    const [folder] = await runFolders(outputDir);
    // The journal's first entry follows the first requests by a moment: it may land after the server has gone.
    const status = async () => (await journal(folder!).catch(() => undefined))?.status;
    await waitFor(async () => (await status()) !== undefined);
    expect(await status()).toBe('running');
    await waitFor(async () => (await status()) === 'complete', 5000);
    expect(ms).toBeLessThan(1000 + 2000);
    expect(asked()).toEqual([1, 1, 1]);
  });

  it('starts exactly one run host for many servers starting at once, and all their runs execute in it', async () => {
    const { env } = models('one-host', [50, 50], 10);
    const outputDir = await tempDir();
    const sessions = await Promise.all(Array.from({ length: 6 }, () => connect(userEnv(fake, outputDir, env))));
    const results = await Promise.all(sessions.map((session, i) => processPrompt(session, { prompt: `question ${i}` })));
    expect(results.map(({ data }) => data!.status)).toEqual(Array(6).fill('complete'));
    const hosts = await hostsUnder(outputDir);
    expect(hosts).toHaveLength(1);
    // V8's flags for a process that lives long and works in bursts (src/host/runtime-flags.ts) reach V8: before the script.
    const args = (await readFile(`/proc/${hosts[0]}/cmdline`, 'utf8')).split('\0');
    expect(
      args.slice(
        1,
        args.findIndex((arg) => arg.endsWith('bin.js')),
      ),
    ).toEqual(RUNTIME_FLAGS.host);
    const owners = await Promise.all(results.map(async ({ data }) => (await journal(data!.run_folder!)).owner.pid));
    expect(new Set(owners)).toEqual(new Set(hosts));
    await Promise.all(sessions.map((session) => session.close()));
  }, 20_000);
});

describe('the run host when idle', () => {
  it('stays while a server waits with no run past the idle time, and exits by itself that long after the last server left', async () => {
    const { env } = models('idle', [20], 20);
    const outputDir = await tempDir();
    const session = await connect(userEnv(fake, outputDir, { ...env, PARALLEL_LLM_HOST_IDLE_MS: '2000' }));
    let left: number | undefined;
    try {
      expect((await processPrompt(session, { prompt: 'q' })).data!.status).toBe('complete');
      const [host] = await hostsUnder(outputDir);
      expect(host).toBeDefined();
      // Real time: the host must outlast its idle time (2 s) while a server stays connected.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(alive(host!)).toBe(true);
      // Taken before the close: the host cannot see its client leave any earlier.
      left = Date.now();
      await session.close();
      await waitFor(() => !alive(host!), 8000);
      expect(Date.now() - left).toBeGreaterThanOrEqual(2000);
    } finally {
      if (left === undefined) await session.close();
    }
  }, 25_000);
});

describe('a run whose run host dies', () => {
  it('reads as interrupted after kill -9 of the host, and the same request resumes it asking only the missing models', async () => {
    const { ids, asked, env } = models('host-killed', [50, 80, 60_000], 20);
    const outputDir = await tempDir();
    const first = await connect(userEnv(fake, outputDir, { ...env, PARALLEL_LLM_BUDGET_MS: '300' }));
    const { data: started } = await processPrompt(first, { prompt: 'resume me' });
    const folder = started!.run_folder!;
    await waitFor(async () => (await journal(folder)).candidates.filter((c: { file?: string }) => c.file).length === 2);
    const [host] = await hostsUnder(outputDir);
    process.kill(host!, 'SIGKILL');
    await waitFor(() => !alive(host!));
    await first.close();

    fake.on(ids[2]!, { answer: `answer of ${ids[2]}`, delayMs: 20 });
    const second = await connect(userEnv(fake, outputDir, env));
    const seen = await callTool(second, 'get_run', { run_id: path.basename(folder), wait_seconds: 0 });
    expect(seen.data!.status).toBe('interrupted');
    expect(seen.data!.models.map((model) => model.status)).toEqual(['answered', 'answered', 'interrupted']);
    const { data } = await processPrompt(second, { prompt: 'resume me' });
    expect(data).toMatchObject({
      status: 'complete',
      joined: 'resumed',
      run_id: path.basename(folder),
      answer: 'the synthesis of 3 answers',
    });
    expect(asked()).toEqual([1, 1, 2, 1]);
    await second.close();
  });
});

describe('a server whose run host is lost', () => {
  it('starts a run host again after the one it read through is killed, for get_run and process_prompt alike', async () => {
    const { env } = models('host-lost', [20], 10);
    const outputDir = await tempDir();
    const starter = await connect(userEnv(fake, outputDir, env));
    const reader = await connect(userEnv(fake, outputDir, env));
    try {
      const { data: first } = await processPrompt(starter, { prompt: 'one' });
      expect(first!.status).toBe('complete');
      // The reader's first use of the host is a read: it finds the host the starter started.
      expect((await callTool(reader, 'get_run', { run_id: first!.run_id })).data!.status).toBe('complete');
      const [host] = await hostsUnder(outputDir);
      process.kill(host!, 'SIGKILL');
      await waitFor(() => !alive(host!));
      expect((await callTool(reader, 'get_run', { run_id: first!.run_id })).data!.status).toBe('complete');
      const { data: second } = await processPrompt(reader, { prompt: 'two' });
      expect(second).toMatchObject({ status: 'complete', warnings: [] });
      const hosts = await hostsUnder(outputDir);
      expect(hosts).toHaveLength(1);
      expect((await journal(second!.run_folder!)).owner.pid).toBe(hosts[0]);
    } finally {
      await Promise.all([starter.close(), reader.close()]);
    }
  });
});

describe('where no run host can start', () => {
  it('runs in the server process, and the first result says so, once', async () => {
    const { env } = models('no-host', [20], 10);
    const outputDir = await tempDir();
    // A folder whose socket path no Unix socket can take: as good as a sandbox that forbids one.
    const session = await connect(userEnv(fake, outputDir, { ...env, PARALLEL_LLM_HOST_DIR: path.join(outputDir, 'x'.repeat(120)) }));
    const first = (await processPrompt(session, { prompt: 'one' })).data!;
    const second = (await processPrompt(session, { prompt: 'two' })).data!;
    expect(first.status).toBe('complete');
    expect(first.warnings.join('\n')).toMatch(
      /Runs execute in this server process, since the run host could not start \(.*longer than a Unix socket allows/,
    );
    expect(second.warnings).toEqual([]);
    expect((await journal(first.run_folder!)).owner.pid).toBe(session.pid);
    expect(await hostsUnder(outputDir)).toEqual([]);
    await session.close();
  });
});
