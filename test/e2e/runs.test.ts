import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructuredResult } from '../../src/present/output-schema.js';
import { startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { callTool, connect, finished, processPrompt, spawnBin, userEnv, waitFor } from './support.js';

/**
 * Runs outlive calls, through the installed bin: a client with a short limit collects the
 * whole synthesis over a few calls, a run survives its client, and a run killed with
 * SIGKILL is resumed by the next process asking only the models that had not answered.
 */
let fake: FakeOpenRouter;

beforeAll(async () => {
  fake = await startFakeOpenRouter({ keepAliveCommentMs: 100 });
});
afterAll(async () => {
  await fake.close();
});

/** The original's timings at 1/10 scale: candidates 0.6-9.8 s, synthesis 4.5 s. */
const SCALED = [600, 2100, 4400, 7300, 9800];

function models(prefix: string, delaysMs: number[], synthesisMs: number) {
  const ids = delaysMs.map((_, i) => `${prefix}/m${i + 1}`);
  ids.forEach((id, i) => fake.on(id, { answer: `answer of ${id}`, delayMs: delaysMs[i] }));
  fake.on(`${prefix}/synth`, { answer: `the synthesis of ${ids.length} answers`, delayMs: synthesisMs });
  return { ids, env: { PARALLEL_LLM_MODELS: ids.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` } };
}

const journal = async (folder: string) => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
const runFolders = async (outputDir: string) => (await readdir(outputDir)).filter((name) => !name.startsWith('.')).map((name) => path.join(outputDir, name));

describe('a client with a 6 s limit, at 1/10 of the original’s latencies', () => {
  it('gets the complete synthesis of all five candidates in at most 3 calls, each answered in time, with 5 candidate requests and 1 synthesis', async () => {
    const { ids, env } = models('scaled', SCALED, 4500);
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
    while (data.status === 'running' && calls.length < 5) data = await timed(() => callTool(session, 'get_run', { run_id: data.run_id }, { timeout: 6000 }));
    expect(data).toMatchObject({ status: 'complete', answer: 'the synthesis of 5 answers' });
    expect(data.models.map((model) => model.status)).toEqual(Array(5).fill('answered'));
    expect(calls.length).toBeLessThanOrEqual(3);
    for (const call of calls) expect(call.ms).toBeLessThan(6000);
    expect(ids.map((id) => fake.requestsFor(id).length)).toEqual([1, 1, 1, 1, 1]);
    expect(fake.requestsFor('scaled/synth')).toHaveLength(1);
    expect(calls[0]!.data.models.filter((model) => model.status === 'answered').length).toBeGreaterThanOrEqual(2);
    await session.close();
  }, 40_000);
});

describe('a run and its process', () => {
  it('finishes a run after its client goes away, then exits; another process reads it', async () => {
    const { env } = models('orphan', [100, 1200], 100);
    const outputDir = await tempDir();
    const child = spawnBin([], userEnv(fake, outputDir, env));
    const exit = finished(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'process_prompt', arguments: { prompt: 'q' } } });
    await waitFor(() => fake.requestsFor('orphan/m2').length === 1);
    child.stdin.end();
    const { code } = await exit;
    expect(code).toBe(0);
    const [folder] = await runFolders(outputDir);
    expect(await journal(folder!)).toMatchObject({ status: 'complete', synthesis: { status: 'answered' } });

    const reader = await connect(userEnv(fake, outputDir, env));
    const { data } = await callTool(reader, 'get_run', { run_id: path.basename(folder!) });
    expect(data).toMatchObject({ status: 'complete', answer: 'the synthesis of 2 answers' });
    await reader.close();
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('exits within 2 s on %s with a run in flight, journaled as interrupted with what is saved', async (signal) => {
    const { env } = models(`signal-${signal}`, [50, 60_000], 10);
    const outputDir = await tempDir();
    const session = await connect(userEnv(fake, outputDir, env));
    const pending = processPrompt(session, { prompt: 'q' }).catch(() => undefined);
    const [folder] = await waitForFolder(outputDir);
    await waitFor(async () => (await journal(folder!).catch(() => ({ candidates: [] }))).candidates[0]?.file !== undefined);
    const started = Date.now();
    process.kill(session.pid, signal);
    await pending;
    await waitFor(async () => (await journal(folder!)).status === 'interrupted', 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    const record = await journal(folder!);
    expect(record.candidates.map((c: { status: string }) => c.status)).toEqual(['answered', 'waiting']);
    expect(await readFile(path.join(folder!, record.candidates[0].file), 'utf8')).toBe(`answer of signal-${signal}/m1`);
    await session.close();
  });

  it('after kill -9, the next process reports the run interrupted, and the same request resumes it asking only the missing models', async () => {
    const { ids, env } = models('killed', [50, 80, 60_000], 20);
    const outputDir = await tempDir();
    const first = await connect(userEnv(fake, outputDir, env));
    const pending = processPrompt(first, { prompt: 'resume me' }).catch(() => undefined);
    const [folder] = await waitForFolder(outputDir);
    await waitFor(async () => (await journal(folder!).catch(() => ({ candidates: [] }))).candidates.filter((c: { file?: string }) => c.file).length === 2);
    process.kill(first.pid, 'SIGKILL');
    await pending;
    await first.close();

    fake.on(ids[2]!, { answer: `answer of ${ids[2]}`, delayMs: 20 });
    const second = await connect(userEnv(fake, outputDir, env));
    const seen = await callTool(second, 'get_run', { run_id: path.basename(folder!), wait_seconds: 0 });
    expect(seen.data!.status).toBe('interrupted');
    expect(seen.data!.models.map((model) => model.status)).toEqual(['answered', 'answered', 'interrupted']);
    const { data } = await processPrompt(second, { prompt: 'resume me' });
    expect(data).toMatchObject({ status: 'complete', joined: 'resumed', run_id: path.basename(folder!), answer: 'the synthesis of 3 answers' });
    expect(ids.map((id) => fake.requestsFor(id).length)).toEqual([1, 1, 2]);
    expect(fake.requestsFor('killed/synth')).toHaveLength(1);
    await second.close();
  });
});

async function waitForFolder(outputDir: string): Promise<string[]> {
  let folders: string[] = [];
  await waitFor(async () => (folders = await runFolders(outputDir)).length > 0);
  return folders;
}

