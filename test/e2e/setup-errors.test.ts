import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { folderWithDotEnv, tempDir } from '../support/harness.js';
import { callTool, connect, runBin, startE2eFake, userEnv, without } from './support.js';

/**
 * A setup mistake reaches the user: the server still starts and answers every tool call with
 * the problem and its fix, and says it once on stderr; `ask` and `doctor` stop at once with
 * the same words.
 */

let fake: FakeOpenRouter;
beforeAll(async () => {
  fake = await startE2eFake();
});
afterAll(async () => {
  await fake.close();
});

const MISTAKES: Array<[string, () => Promise<Record<string, string>>, string]> = [
  [
    'a missing OPENROUTER_API_KEY',
    async () => without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY'),
    'OPENROUTER_API_KEY is not set: get a key at https://openrouter.ai/keys',
  ],
  [
    'PARALLEL_LLM_MAX_CONCURRENCY=abc',
    async () => userEnv(fake, await tempDir(), { PARALLEL_LLM_MAX_CONCURRENCY: 'abc' }),
    'PARALLEL_LLM_MAX_CONCURRENCY must be a number (got "abc")',
  ],
  [
    'a PARALLEL_LLM_LOG_FILE that is a folder',
    async () => {
      const dir = await tempDir();
      return userEnv(fake, await tempDir(), { PARALLEL_LLM_LOG_FILE: dir, MISTAKE_DIR: dir });
    },
    'PARALLEL_LLM_LOG_FILE ($MISTAKE_DIR) is a directory: name a file',
  ],
];

/** The problem as the user must read it, with this run's paths in it. */
const expected = (problem: string, env: Record<string, string>) => problem.replace('$MISTAKE_DIR', env.MISTAKE_DIR ?? '');

describe.each(MISTAKES)('with %s', (_name, environment, problem) => {
  it('the server starts, lists its tools, and answers every tool call with isError, the problem and the fix; stderr says it once', async () => {
    const env = await environment();
    const session = await connect(env);
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
      expect(session.client.getServerVersion()?.name).toBe('parallel-llm-server');
      for (const [name, args] of [
        ['process_prompt', { prompt: 'What is 2+2?' }],
        ['get_run', { run_id: 'x' }],
        ['process_prompt', {}],
      ] as const) {
        const { result, text } = await callTool(session, name, args);
        expect(result.isError, name).toBe(true);
        expect(text).toContain(`parallel-llm-mcp cannot run: ${expected(problem, env)}`);
        expect(text).toContain('"env" block');
      }
      expect(
        session
          .stderr()
          .split('\n')
          .filter((line) => line.includes(expected(problem, env))),
      ).toEqual([`parallel-llm-mcp: ${expected(problem, env)}`]);
      expect(fake.requests).toHaveLength(0);
    } finally {
      await session.close();
    }
  });

  it('ask exits 1 at once with the same words on stderr, asking no model', async () => {
    const env = await environment();
    const result = await runBin(['ask', 'What is 2+2?'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`parallel-llm-mcp: ${expected(problem, env)}\n`);
    expect(fake.requests).toHaveLength(0);
  });

  it('doctor exits 1 with the same words', async () => {
    const env = await environment();
    const result = await runBin(['doctor'], env);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(expected(problem, env));
  });
});

describe('.env in the working folder', () => {
  it('gives the server its key and settings, under the real environment, which wins', async () => {
    fake.on('e2e/from-dotenv', { answer: 'from .env', delayMs: 10 });
    const cwd = await folderWithDotEnv(
      '# the key\nexport OPENROUTER_API_KEY="sk-or-v1-test-key-0123456789"\nPARALLEL_LLM_MODELS=e2e/from-dotenv # one model\nPARALLEL_LLM_SYNTHESIZER_MODEL=e2e/not-this-one\n',
    );
    const session = await connect(without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY', 'PARALLEL_LLM_MODELS'), undefined, [], cwd);
    try {
      const { result, data } = await callTool(session, 'process_prompt', { prompt: 'a question for .env' });
      expect(result.isError).toBeFalsy();
      expect(data!.models.map((model) => model.model)).toEqual(['e2e/from-dotenv']);
      // userEnv sets the synthesizer: the environment wins over .env.
      expect(data!.synthesizer.model).toBe('e2e/synth');
    } finally {
      await session.close();
    }
  });

  it('is read by ask', async () => {
    fake.on('e2e/ask-dotenv', { answer: 'asked', delayMs: 10 });
    const cwd = await folderWithDotEnv("OPENROUTER_API_KEY='sk-or-v1-test-key-0123456789'\nPARALLEL_LLM_MODELS=e2e/ask-dotenv\n");
    const result = await runBin(
      ['ask', 'q'],
      without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY', 'PARALLEL_LLM_MODELS'),
      '',
      cwd,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 4.\n');
    expect(fake.requestsFor('e2e/ask-dotenv')).toHaveLength(1);
  });

  it('is read by doctor', async () => {
    const cwd = await folderWithDotEnv('OPENROUTER_API_KEY=sk-wrong-from-dotenv\n');
    const result = await runBin(['doctor'], without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY'), '', cwd);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('OPENROUTER_API_KEY was refused');
    expect(result.stdout).not.toContain('sk-wrong-from-dotenv');
  });

  it('that cannot be read (a folder) is a setup problem the server reports in every tool call', async () => {
    const cwd = await tempDir();
    await mkdir(path.join(cwd, '.env'));
    const session = await connect(userEnv(fake, await tempDir()), undefined, [], cwd);
    try {
      const { result, text } = await callTool(session, 'process_prompt', { prompt: 'q' });
      expect(result.isError).toBe(true);
      expect(text).toContain(`${path.join(cwd, '.env')} cannot be read (EISDIR)`);
    } finally {
      await session.close();
    }
  });
});
