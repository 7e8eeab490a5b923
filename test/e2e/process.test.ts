import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { connect, finished, processPrompt, spawnBin, startE2eFake, userEnv, waitFor } from './support.js';

/**
 * The installed bin under hostile conditions (issue 10, items 10, 13): a stderr nobody reads,
 * a full disk under the log file, an over-long line on stdin. A bad log file is a setup
 * mistake: test/e2e/setup-errors.test.ts.
 */

let fake: FakeOpenRouter;

beforeAll(async () => {
  fake = await startE2eFake();
});
afterAll(async () => {
  await fake.close();
});
/** What each test started, stopped even when the test fails half-way: a frozen server must not outlive it. */
const leftovers: Array<() => unknown> = [];
afterEach(async () => {
  await Promise.all(leftovers.splice(0).map((stop) => stop()));
});

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const toolCall = (id: number, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'process_prompt', arguments: args } });

/** The bin as a raw child whose stdout is collected and whose stderr is left as the test says. */
function rawServer(env: Record<string, string>) {
  const child = spawnBin([], env);
  leftovers.push(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    send: (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`),
    answered: (id: number, timeoutMs?: number) => waitFor(() => stdout.includes(`"id":${id}`), timeoutMs),
  };
}

describe('logging never blocks or kills the server (item 10)', () => {
  it('answers calls promptly while nobody reads its stderr, and still exits within 2 s', async () => {
    const server = rawServer(userEnv(fake, await tempDir(), { PARALLEL_LLM_LOG_LEVEL: 'trace' }));
    // Nobody reads stderr: the pipe fills after a few hundred KiB of logs.
    server.child.stderr.pause();
    server.send(initialize);
    await server.answered(1);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // Model ids of 400 KB each: every line that names the models is that long, megabytes of logs in all.
    const loud = ['a', 'b', 'c'].map((letter) => `e2e/${letter.repeat(400_000)}`);
    server.send(toolCall(2, { prompt: 'q', models: loud }));
    await server.answered(2, 10_000);
    server.send(toolCall(3, { prompt: 'again', models: loud }));
    await server.answered(3, 10_000);

    const since = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - since).toBeLessThan(2000);
  });

  it.skipIf(!existsSync('/dev/full'))('answers every call and lives on when the disk under the log file is full (/dev/full)', async () => {
    const session = await connect(userEnv(fake, await tempDir(), { PARALLEL_LLM_LOG_FILE: '/dev/full' }));
    leftovers.push(() => session.close());
    for (const prompt of ['first', 'second']) {
      const { result, data } = await processPrompt(session, { prompt });
      expect(result.isError).toBeFalsy();
      expect(data!.status).toBe('complete');
    }
    expect(session.stderr().match(/cannot write the log file/g)).toHaveLength(1);
  });
});

describe('the log file', () => {
  it('gets the last lines, up to the shutdown, before the process exits', async () => {
    const logFile = path.join(await tempDir(), 'logs', 'server.log');
    const server = rawServer(userEnv(fake, await tempDir(), { PARALLEL_LLM_LOG_FILE: logFile }));
    server.send(initialize);
    await server.answered(1);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    const lines = (await readFile(logFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ msg: 'shutting down', reason: 'SIGTERM' });
    expect((await stat(logFile)).mode & 0o777).toBe(0o600);
  });
});

describe('an over-long JSON-RPC line on stdin (item 13)', () => {
  it('ends the process with a line that says why, and exit code 1', async () => {
    const child = spawnBin([], userEnv(fake, await tempDir()));
    leftovers.push(() => child.kill('SIGKILL'));
    const exit = finished(child);
    child.stdin.on('error', () => undefined);
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    // One byte over the SDK's 10 MiB limit, and no newline: the transport gives up on it.
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 10; i++) child.stdin.write(chunk);
    child.stdin.write('xx');
    const result = await exit;
    expect(result.code).toBe(1);
    const why = result.stderr.split('\n').find((line) => line.includes('shutting down'));
    expect(why).toContain('ReadBuffer exceeded maximum size');
    expect(JSON.parse(why!)).toMatchObject({ level: 50, exitCode: 1 });
  });
});
