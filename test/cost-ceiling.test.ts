import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenRouter, type FakeOpenRouter, type FakeOptions } from './support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach, type Harness } from './support/harness.js';
import { pricing } from './support/price-rows.js';
import { waitFor } from './support/wait.js';

/*
 * The cost ceiling, through the MCP client against the fake, whose GET /models serves prices.
 * With a 1-character prompt and max_tokens 1,000 the worst case is about $0.057: the three
 * candidates' output ($0.036) and one synthesis reading them, with the account of agreement's
 * instructions and schema ($0.021).
 */
const PRICES = {
  'a/one': pricing('0.000001', '0.000002'),
  'b/two': pricing('0.00001', '0.00003'),
  'c/three': pricing('0.000002', '0.000004'),
  's/synth': pricing('0.000002', '0.00001'),
};

const start = harnessesClosedAfterEach();
const fakes: FakeOpenRouter[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function setUp(
  env: Record<string, string> = {},
  options: FakeOptions = { prices: PRICES },
): Promise<{ fake: FakeOpenRouter; harness: Harness }> {
  const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50, ...options });
  fakes.push(fake);
  return { fake, harness: await start(fake, env) };
}

const ask = (harness: Harness, args: Record<string, unknown>) =>
  callTool(harness, 'process_prompt', { prompt: 'q', max_tokens: 1000, ...args });
const runFolders = async (harness: Harness) => (await readdir(harness.outputDir)).filter((name) => /^\d{4}-/.test(name));

describe('a call whose worst case is above its ceiling', () => {
  it('is refused before any request, with the estimate per model and what would fit; no run folder is made', async () => {
    const { fake, harness } = await setUp();
    const { result, text } = await ask(harness, { max_cost_usd: 0.01 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^Refused before any request: the worst case is \$0\.05\d+, above the cost ceiling of \$0\.01\.$/);
    expect(lines[1]).toMatch(
      /^Worst case per model: b\/two \$0\.03\d* \(1 step\); s\/synth \$0\.02\d* \(1 step\); c\/three \$0\.004\d* \(1 step\); a\/one \$0\.002\d* \(1 step\)\.$/,
    );
    expect(lines[2]).toMatch(/^Would fit: max_tokens \d+ \(worst case \$0\.0\d+\)\.$/);
    expect(fake.requests).toEqual([]);
    expect(await runFolders(harness)).toEqual([]);
  });

  it('names the models to leave out when that fits', async () => {
    const { fake, harness } = await setUp();
    const { result, text } = await ask(harness, { max_cost_usd: 0.03 });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/Would fit: without b\/two \(worst case \$0\.02\d*\); or max_tokens \d+/);
    expect(fake.requests).toEqual([]);
  });

  it('is refused under the server’s PARALLEL_LLM_MAX_COST_USD, which a call may lower but never raise', async () => {
    const { fake, harness } = await setUp({ PARALLEL_LLM_MAX_COST_USD: '0.01' });
    expect((await ask(harness, {})).text).toMatch(/above the cost ceiling of \$0\.01\./);
    expect((await ask(harness, { max_cost_usd: 5 })).text).toMatch(/above the cost ceiling of \$0\.01\./);
    expect(fake.requests).toEqual([]);
  });

  it('is refused when a model has no price, naming it and why', async () => {
    const { fake, harness } = await setUp();
    const { result, text } = await ask(harness, { models: ['a/one', 'acme/unlisted'], max_cost_usd: 10 });
    expect(result.isError).toBe(true);
    expect(text).toBe(
      "Refused before any request: the cost ceiling is $10, and 1 model has no price to promise a worst case with (acme/unlisted is not in OpenRouter's model list). Leave them out, or call without a ceiling.",
    );
    expect(fake.requests).toEqual([]);
  });

  it('is refused when no prices can be read, saying why and what to do', async () => {
    const { fake, harness } = await setUp({}, { prices: 'missing' });
    const { result, text } = await ask(harness, { max_cost_usd: 10 });
    expect(result.isError).toBe(true);
    expect(text).toMatch(
      /^Refused before any request: the cost ceiling is \$10, and OpenRouter's prices could not be read: GET \/models failed: no route GET \/models\. Without prices no worst-case cost can be checked/,
    );
    expect(fake.requests).toEqual([]);
  });

  it('fails the task at once when the client asked for one, saying why, with the refusal as its result', async () => {
    const { fake, harness } = await setUp();
    const arguments_ = { prompt: 'q', max_tokens: 1000, max_cost_usd: 0.01 };
    const messages = [];
    for await (const message of harness.client.experimental.tasks.callToolStream(
      { name: 'process_prompt', arguments: arguments_ },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      messages.push(message);
    }
    const status = messages.find((message) => message.type === 'taskStatus');
    expect(status?.type === 'taskStatus' && status.task).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringMatching(/^Refused before any request: the worst case is/),
    });
    const taskId = status?.type === 'taskStatus' ? status.task.taskId : '';
    const result = (await harness.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Would fit:') });
    expect(fake.requests).toEqual([]);
  });
});

describe('a call within its ceiling', () => {
  it('runs, and its result and run.json give the ceiling and the worst case per model', async () => {
    const { fake, harness } = await setUp();
    const { result, text, data } = await ask(harness, { max_cost_usd: 1 });
    expect(result.isError).toBeFalsy();
    expect(fake.requests).toHaveLength(4);
    expect(data!.cost_ceiling_usd).toBe(1);
    expect(data!.worst_case).toMatchObject({ total_usd: expect.closeTo(0.0566, 3), unpriced: [], refresh_failed: null });
    expect(data!.worst_case!.per_model.map((entry) => entry.model)).toEqual(['b/two', 's/synth', 'c/three', 'a/one']);
    expect(text).toMatch(/Cost: \$0\.0060, .*; worst case \$0\.0\d+, under the ceiling of \$1\./);
    await harness.app.runs.idle();
    const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
    expect(record.cost).toEqual({ ceiling_usd: 1, worst_case: expect.objectContaining({ total_usd: data!.worst_case!.total_usd }) });
  });

  it('is joined, never refused, when the same request is already running: joining costs nothing', async () => {
    const { fake, harness } = await setUp();
    fake.on('c/three', { answer: 'slow', delayMs: 300 });
    const first = ask(harness, { max_cost_usd: 1 });
    await waitFor(() => fake.requests.length >= 3);
    const { result, data } = await ask(harness, { max_cost_usd: 0.0001 });
    expect(result.isError).toBeFalsy();
    expect(data!.joined).toBe('attached');
    await first;
    expect(fake.requests).toHaveLength(4);
  });
});

describe('a refused call', () => {
  it('leaves nothing behind: the same request under a higher ceiling starts at once, as a new run', async () => {
    const { fake, harness } = await setUp();
    expect((await ask(harness, { max_cost_usd: 0.01 })).result.isError).toBe(true);
    const { result, data } = await ask(harness, { max_cost_usd: 1 });
    expect(result.isError).toBeFalsy();
    expect(data).toMatchObject({ joined: 'new', status: 'complete' });
    expect(fake.requests).toHaveLength(4);
  });
});

describe('a stopped run taken over under a ceiling', () => {
  /** A run stopped with a/one and b/two answered, c/three still to ask; `second` is a server on its folder. */
  async function stoppedRun() {
    const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50, prices: PRICES });
    fakes.push(fake);
    fake.on('c/three', { answer: 'slow', delayMs: 5000 });
    const first = await start(fake, { PARALLEL_LLM_BUDGET_MS: '300' });
    const { data } = await ask(first, {});
    await first.app.runs.interruptAll();
    fake.on('c/three', { answer: 'three' });
    return { fake, data: data!, second: () => start(fake, {}, { outputDir: first.outputDir }) };
  }

  it('is admitted at what is left to pay: the answers it saved are not counted again', async () => {
    const { data, second: startSecond } = await stoppedRun();
    // The whole run's worst case (~$0.055) is above $0.03; what is left (c/three and the synthesis, ~$0.023) is not.
    const second = await startSecond();
    const { result, data: resumed } = await ask(second, { max_cost_usd: 0.03 });
    expect(result.isError).toBeFalsy();
    expect(resumed).toMatchObject({ run_id: data.run_id, joined: 'resumed', status: 'complete', cost_ceiling_usd: 0.03 });
    expect(resumed!.worst_case!.per_model.map((entry) => entry.model)).toEqual(['s/synth', 'c/three']);
  });

  it('counts as unpaid a saved answer that cannot be read back, since it will be asked again', async () => {
    const { fake, data, second: startSecond } = await stoppedRun();
    await rm(path.join(data.run_folder!, 'candidate-2_b_two.md'));
    // Left to pay: b/two again (~$0.03), c/three and the synthesis (~$0.023): above $0.03.
    const second = await startSecond();
    const { result, text } = await ask(second, { max_cost_usd: 0.03 });
    expect(result.isError).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^Worst case per model: b\/two \$0\.03\d* \(1 step\); s\/synth .*; c\/three .*\.$/);
    expect(fake.requestsFor('b/two')).toHaveLength(1);
    const { data: resumed } = await ask(second, { max_cost_usd: 0.1 });
    expect(resumed).toMatchObject({ run_id: data.run_id, joined: 'resumed', status: 'complete' });
    expect(resumed!.worst_case!.per_model.map((entry) => entry.model).sort()).toEqual(['b/two', 'c/three', 's/synth']);
    expect(fake.requestsFor('b/two')).toHaveLength(2);
  });
});

describe('a call without a ceiling', () => {
  it('never waits for prices, and records the worst case once they are at hand', async () => {
    const { harness } = await setUp();
    const first = await ask(harness, {});
    expect(first.data!.worst_case).toBeNull();
    expect(first.data!.cost_ceiling_usd).toBeNull();
    // The first call started the fetch; the next finds the prices at hand.
    await waitFor(async () => (await ask(harness, { fresh: true })).data!.worst_case !== null);
  });
});
