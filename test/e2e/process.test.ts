import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { connect, processPrompt, spawnBin, startE2eFake, userEnv, waitFor } from './support.js';

/**
 * The installed bin under hostile conditions: a stderr nobody reads,
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

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const toolCall = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'process_prompt', arguments: args },
});

/** The bin as a raw child whose stdout is collected and whose stderr is left as the test says. */
function rawServer(env: Record<string, string>) {
  const child = spawnBin([], env);
  leftovers.push(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    send: (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`),
    answered: (id: number, timeoutMs?: number) => waitFor(() => stdout.includes(`"id":${id}`), timeoutMs),
    stdout: () => stdout,
  };
}

describe('logging never blocks or kills the server', () => {
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
    const lines = (await readFile(logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ msg: 'shutting down', reason: 'SIGTERM' });
    expect((await stat(logFile)).mode & 0o777).toBe(0o600);
  });
});

describe('an over-long line on stdin', () => {
  it('never ends the server or its calls in flight: an 11 MB line is refused as too long a prompt, a 50 MB one as too long a message, and every other call goes on', async () => {
    const server = rawServer(userEnv(fake, await tempDir()));
    server.child.stdin.on('error', () => undefined);
    server.send(initialize);
    await server.answered(1);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // A call in flight while the long lines arrive (e2e/three answers after 90 ms).
    server.send(toolCall(2, { prompt: 'in flight' }));
    for (const [id, megabytes] of [
      [3, 11],
      [4, 50],
    ] as const) {
      server.send(toolCall(id, { prompt: 'x'.repeat(megabytes * 1024 * 1024) }));
    }
    server.send(toolCall(5, { prompt: 'after the long lines' }));
    for (const id of [2, 3, 4, 5]) await server.answered(id, 20_000);
    const replies = new Map(
      server
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map((reply) => [reply.id, reply]),
    );
    expect(replies.get(2).result.structuredContent.status).toBe('complete');
    expect(replies.get(5).result.structuredContent.status).toBe('complete');
    expect(replies.get(3).result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/prompt is longer than the limit/) }],
    });
    expect(replies.get(4).error.message).toMatch(/over the limit of 16777216/);
    expect(server.child.exitCode).toBeNull();
  }, 40_000);
});
