import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { VALID_KEY, startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { connect, finished, processPrompt, spawnBin, startE2eFake, userEnv, waitFor } from './support.js';

let fake: FakeOpenRouter;

beforeAll(async () => {
  fake = await startE2eFake();
});
afterAll(async () => {
  await fake.close();
});

describe('the installed package over stdio', () => {
  it('starts through npx from the packed tarball and lists its tools', async () => {
    const session = await connect(userEnv(fake, await tempDir()), 'npx', ['-y', `--package=${inject('tarball')}`, 'parallel-llm-mcp']);
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
    expect(session.client.getServerVersion()?.name).toBe('parallel-llm-server');
    await session.close();
  }, 120_000);

  it('answers a prompt end to end and saves every answer in a new run folder', async () => {
    const outputDir = await tempDir();
    const session = await connect(userEnv(fake, outputDir));
    const { result, text, data } = await processPrompt(session, { prompt: 'What is 2+2?' });
    expect(result.isError).toBeFalsy();
    expect(text.startsWith('All 3 models answered; synthesized by e2e/synth. Cost $0.0060.\n\nThe answer is 4.')).toBe(true);
    expect(data!.status).toBe('complete');
    // final.md follows the reply by moments.
    await waitFor(async () => (await readdir(data!.run_folder!)).length === 5);
    expect((await readdir(data!.run_folder!)).sort()).toEqual([
      'candidate-1_e2e_one.md',
      'candidate-2_e2e_two.md',
      'candidate-3_e2e_three.md',
      'final.md',
      'run.json',
    ]);
    await session.close();
  });

  it('shows partial failure and, when nothing answers, total failure with each real error', async () => {
    fake.on('e2e/down', {
      status: 503,
      error: { code: 503, message: 'No endpoints found that support tool use' },
      headers: { 'retry-after': '0' },
    });
    fake.on('e2e/nokey', { status: 401, error: { code: 401, message: 'User not found.' } });
    const session = await connect(userEnv(fake, await tempDir(), { PARALLEL_LLM_MAX_RETRIES: '0' }));
    const partial = await processPrompt(session, { prompt: 'q', models: ['e2e/one', 'e2e/down'] });
    expect(partial.data!.status).toBe('partial');
    expect(partial.text).toContain('Failed: e2e/down: http 503: No endpoints found that support tool use.');
    const total = await processPrompt(session, { prompt: 'q', models: ['e2e/down', 'e2e/nokey'] });
    expect(total.result.isError).toBe(true);
    expect(total.text).toContain('- e2e/nokey: http 401: User not found.');
    await session.close();
  });

  it('keeps eight concurrent calls apart: eight folders, no file written twice', async () => {
    const outputDir = await tempDir();
    const session = await connect(userEnv(fake, outputDir));
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => processPrompt(session, { prompt: `question ${i}` })));
    const folders = results.map(({ data }) => data!.run_folder!);
    expect(new Set(folders).size).toBe(8);
    for (const [i, folder] of folders.entries()) {
      const record = JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
      expect(record.prompt).toBe(`question ${i}`);
      await waitFor(async () => (await readdir(folder)).length === 5);
    }
    expect((await readdir(outputDir)).filter((name) => !name.startsWith('.'))).toHaveLength(8);
    await session.close();
  });

  it('aborts every upstream request when the client cancels the call', async () => {
    fake.on('e2e/slow', { answer: 'slow', delayMs: 10_000 });
    const session = await connect(userEnv(fake, await tempDir()));
    const abortedBefore = fake.aborted;
    const requestsBefore = fake.requestsFor('e2e/slow').length;
    const controller = new AbortController();
    const pending = processPrompt(session, { prompt: 'q', models: ['e2e/slow', 'e2e/slow', 'e2e/slow'] }, { signal: controller.signal });
    await waitFor(() => fake.requestsFor('e2e/slow').length === requestsBefore + 3);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => fake.aborted === abortedBefore + 3, 2000);
    await session.close();
  });

  it('refuses bad input with isError before any upstream call', async () => {
    const session = await connect(userEnv(fake, await tempDir(), { PARALLEL_LLM_MAX_PROMPT_CHARS: '50' }));
    const before = fake.requests.length;
    for (const args of [{ prompt: '' }, { prompt: 'x'.repeat(51) }, { prompt: ['not', 'a', 'string'] }]) {
      const { result } = await processPrompt(session, args);
      expect(result.isError).toBe(true);
    }
    expect(fake.requests.length).toBe(before);
    await session.close();
  });

  it('reuses at most five TCP connections for ten calls of five models', async () => {
    const counted = await startFakeOpenRouter();
    const models = ['c/1', 'c/2', 'c/3', 'c/4', 'c/5'];
    for (const [i, model] of models.entries()) counted.on(model, { answer: `answer ${i}`, delayMs: 20 + 10 * i });
    const env = { ...userEnv(counted, await tempDir()), PARALLEL_LLM_MODELS: models.join(',') };
    const session = await connect(env);
    for (let i = 0; i < 10; i++) await processPrompt(session, { prompt: `call ${i}` });
    expect(counted.requests).toHaveLength(60);
    expect(counted.connections).toBeLessThanOrEqual(5);
    await session.close();
    await counted.close();
  });
});

describe('the process: stdout, logs, secrets and shutdown', () => {
  it('writes nothing but JSON-RPC to stdout, logs to stderr and the log file (with the run host’s lines), and never the key', async () => {
    const outputDir = await tempDir();
    const logFile = path.join(await tempDir(), 'server.log');
    const child = spawnBin([], userEnv(fake, outputDir, { PARALLEL_LLM_LOG_LEVEL: 'trace', PARALLEL_LLM_LOG_FILE: logFile }));
    const done = finished(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // One model echoes the request's Authorization header back, as some proxies do in errors.
    fake.on('e2e/echo', {
      fromRequest: (request) => ({ status: 400, error: { code: 400, message: `bad request, headers: ${request.headers.authorization}` } }),
    });
    const models = ['e2e/one', 'e2e/echo'];
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'process_prompt', arguments: { prompt: 'q', models }, _meta: { progressToken: 'p1' } },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    await waitFor(() => stdout.includes('"id":2'), 10_000);
    child.stdin.end();
    const exit = await done;

    const lines = stdout.trim().split('\n');
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.some((line) => line.includes('notifications/progress'))).toBe(true);
    expect(exit.stderr).toContain('"msg":"process_prompt"');
    await waitFor(async () => (await readFile(logFile, 'utf8')).includes('"msg":"candidate answered"'));
    const runFolder = JSON.parse(lines.find((line) => line.includes('"id":2'))!).result.structuredContent.run_folder;
    const everything = [
      stdout,
      exit.stderr,
      await readFile(logFile, 'utf8'),
      ...(await Promise.all((await readdir(runFolder)).map((f) => readFile(path.join(runFolder, f), 'utf8')))),
    ];
    for (const text of everything) expect(text).not.toContain(VALID_KEY);
  });

  it.each([
    ['SIGTERM arrives', (child: ReturnType<typeof spawnBin>) => child.kill('SIGTERM')],
    ['SIGINT arrives', (child: ReturnType<typeof spawnBin>) => child.kill('SIGINT')],
    ['SIGHUP arrives', (child: ReturnType<typeof spawnBin>) => child.kill('SIGHUP')],
  ])('exits cleanly within 2 s when %s, even with a call in flight (its run goes on in the run host)', async (_name, stop) => {
    fake.on('e2e/hang', { hang: true });
    const child = spawnBin([], userEnv(fake, await tempDir(), { PARALLEL_LLM_MODELS: 'e2e/hang' }));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    await waitFor(() => stdout.includes('"id":1'));
    const before = fake.requestsFor('e2e/hang').length;
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'process_prompt', arguments: { prompt: 'q' } } })}\n`,
    );
    await waitFor(() => fake.requestsFor('e2e/hang').length === before + 1);
    const since = Date.now();
    const exit = finished(child, since);
    stop(child);
    const result = await exit;
    expect(result.ms).toBeLessThan(2000);
    expect(result.code).toBe(0);
  });

  it('exits within 2 s when stdout breaks (EPIPE)', async () => {
    const child = spawnBin([], userEnv(fake, await tempDir()));
    const exit = finished(child);
    child.stdout.destroy();
    const since = Date.now();
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    const result = await exit;
    expect(Date.now() - since).toBeLessThan(2000);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('EPIPE');
  });
});
