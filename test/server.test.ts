import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StructuredResult } from '../src/tool.js';
import { VALID_KEY, startFakeOpenRouter, type FakeOpenRouter } from './support/fake-openrouter.js';
import { startHarness, tempDir, type Harness } from './support/harness.js';

let fake: FakeOpenRouter;
let harness: Harness;

beforeAll(async () => {
  fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await harness?.close();
  fake.otherwise({ answer: 'default answer' });
});

function scriptModels(prefix: string) {
  const models = [`${prefix}/one`, `${prefix}/two`, `${prefix}/three`];
  models.forEach((model, i) => fake.on(model, { answer: `answer ${i + 1} from ${model}`, delayMs: 20 * i }));
  fake.on(`${prefix}/synth`, { answer: `synthesized for ${prefix}` });
  return { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` };
}

async function call(args: Record<string, unknown>, options: Parameters<Harness['client']['callTool']>[2] = {}) {
  const result = (await harness.client.callTool({ name: 'process_prompt', arguments: args }, undefined, options)) as CallToolResult;
  return { result, text: (result.content[0] as { text: string }).text, data: result.structuredContent as StructuredResult | undefined };
}

describe('process_prompt through the MCP client', () => {
  it('lists one tool with input and output schemas and the per-call overrides', async () => {
    harness = await startHarness(fake);
    const { tools } = await harness.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['process_prompt']);
    const [tool] = tools;
    expect(Object.keys(tool!.inputSchema.properties ?? {})).toEqual(['prompt', 'models', 'synthesizer_model', 'temperature', 'max_tokens']);
    expect(tool!.inputSchema.required).toEqual(['prompt']);
    expect(tool!.outputSchema?.properties).toHaveProperty('models');
    expect(tool!.annotations).toMatchObject({ openWorldHint: true, destructiveHint: false });
    expect(harness.client.getInstructions()).toContain('costs money');
  });

  it('answers with the synthesis, every model’s outcome, usage, cost, and a run folder holding every answer', async () => {
    harness = await startHarness(fake, scriptModels('happy'));
    const { result, text, data } = await call({ prompt: 'What is 2+2?' });
    expect(result.isError).toBeFalsy();
    expect(text.startsWith('synthesized for happy')).toBe(true);
    expect(text).toContain('Models: 3 of 3 answered');
    expect(text).toMatch(/Cost: \$0\.0060, 600 tokens/);
    expect(data).toMatchObject({ status: 'complete', answer: 'synthesized for happy', cut_off_models: [] });
    expect(data!.models.map((m) => [m.model, m.status])).toEqual([
      ['happy/one', 'answered'],
      ['happy/two', 'answered'],
      ['happy/three', 'answered'],
    ]);
    expect(data!.models[0]!.usage).toMatchObject({ total_tokens: 150, cost: 0.0015 });
    expect(data!.totals).toMatchObject({ total_tokens: 600, cost: 0.006 });
    expect(data!.synthesizer).toMatchObject({ model: 'happy/synth', status: 'answered' });

    const folder = data!.run_folder!;
    expect(path.dirname(folder)).toBe(harness.outputDir);
    expect((await readdir(folder)).sort()).toEqual([
      'candidate-1_happy_one.md',
      'candidate-2_happy_two.md',
      'candidate-3_happy_three.md',
      'final.md',
      'run.json',
    ]);
    expect(await readFile(path.join(folder, 'candidate-2_happy_two.md'), 'utf8')).toBe('answer 2 from happy/two');
    expect(await readFile(path.join(folder, 'final.md'), 'utf8')).toBe('synthesized for happy');
    expect(data!.synthesizer.file).toBe(path.join(folder, 'final.md'));
    const record = JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
    expect(record).toMatchObject({ status: 'complete', prompt: 'What is 2+2?', settings: { synthesizer_model: 'happy/synth' } });
    expect(record.synthesis.file).toBe(path.join(folder, 'final.md'));
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(folder, 'final.md'))).mode & 0o777).toBe(0o600);
  });

  it('gives the synthesizer the original problem and each candidate labelled with its model id', async () => {
    harness = await startHarness(fake, scriptModels('prompt'));
    await call({ prompt: 'Explain monads.' });
    const [synthesis] = fake.requestsFor('prompt/synth');
    const content = (synthesis!.body.messages as Array<{ content: string }>)[0]!.content;
    expect(content).toContain('3 AI models were given the same problem');
    expect(content).toContain('Explain monads.');
    expect(content.indexOf('Candidate 1: prompt/one')).toBeLessThan(content.indexOf('Candidate 3: prompt/three'));
    expect(content).toContain('answer 3 from prompt/three');
    expect(content).toContain('single best solution');
  });

  it('treats an answer that begins with "Error:" as an answer like any other', async () => {
    harness = await startHarness(fake, scriptModels('err-text'));
    fake.on('err-text/two', { answer: 'Error: this is how the Python exception reads, and here is why.' });
    const { data } = await call({ prompt: 'Explain this traceback' });
    expect(data!.models[1]).toMatchObject({ status: 'answered' });
    const synthesis = JSON.stringify(fake.requestsFor('err-text/synth')[0]!.body);
    expect(synthesis).toContain('Error: this is how the Python exception reads');
  });

  it('shows a partial failure: which model failed, its status and OpenRouter’s own message', async () => {
    harness = await startHarness(fake, scriptModels('partial'));
    fake.on('partial/two', { status: 402, error: { code: 402, message: 'Insufficient credits' } });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBeFalsy();
    expect(data!.status).toBe('partial');
    expect(data!.models[1]).toMatchObject({ status: 'failed', error: { kind: 'http', status: 402, message: 'Insufficient credits' } });
    expect(data!.models[1]!.error!.advice).toMatch(/credits/);
    expect(text).toContain('Failed: partial/two: http 402: Insufficient credits. Add credits');
    expect(text).not.toMatch(/\.\.$/m);
    expect(text).toContain('Models: 2 of 3 answered');
  });

  it('fails with isError and each model’s real error when no model answers, without calling the synthesizer', async () => {
    harness = await startHarness(fake, scriptModels('total'));
    fake.on('total/one', { status: 401, error: { code: 401, message: 'User not found.' } });
    fake.on('total/two', { status: 400, error: { code: 400, message: 'total/two is not a valid model ID' } });
    fake.on('total/three', { answer: '', json: true });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBe(true);
    expect(text).toContain('No model answered.');
    expect(text).toContain('total/one: http 401: User not found. Check OPENROUTER_API_KEY');
    expect(text).toContain('total/two: http 400: total/two is not a valid model ID');
    expect(text).toContain('total/three: empty');
    expect(data!.status).toBe('failed');
    expect(fake.requestsFor('total/synth')).toHaveLength(0);
  });

  it('returns the candidates with the synthesizer’s real error when synthesis fails', async () => {
    harness = await startHarness(fake, scriptModels('synth-fails'));
    fake.on('synth-fails/synth', { status: 400, error: { code: 400, message: 'This endpoint’s maximum context length is 8192 tokens' } });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBeFalsy();
    expect(data!.status).toBe('candidates_only');
    expect(data!.answer).toBeNull();
    expect(data!.synthesizer).toMatchObject({ status: 'failed', error: { status: 400, message: 'This endpoint’s maximum context length is 8192 tokens' } });
    expect(text).toContain('Synthesis with synth-fails/synth did not succeed: http 400: This endpoint’s maximum context length is 8192 tokens');
    for (let i = 1; i <= 3; i++) expect(text).toContain(`answer ${i} from synth-fails/`);
    expect(text).toContain(data!.run_folder!);
  });

  it('reports a reasoning model that ran out of max_tokens as truncated, saves its reasoning, and keeps it out of synthesis', async () => {
    harness = await startHarness(fake, scriptModels('reasoner'));
    fake.on('reasoner/two', { answer: '', reasoning: 'Step 1: consider the secret plan...', finishReason: 'length' });
    const { text, data } = await call({ prompt: 'q', max_tokens: 64 });
    expect(data!.models[1]).toMatchObject({ status: 'failed', error: { kind: 'truncated' } });
    expect(data!.models[1]!.error!.message).toContain('max_tokens (64) ran out before any answer');
    expect(data!.models[1]!.error!.advice).toMatch(/Raise max_tokens/);
    expect(text).toContain('reasoner/two: truncated');
    const reasoning = await readFile(path.join(data!.run_folder!, 'candidate-2_reasoner_two.reasoning.md'), 'utf8');
    expect(reasoning).toBe('Step 1: consider the secret plan...');
    expect(JSON.stringify(fake.requestsFor('reasoner/synth')[0]!.body)).not.toContain('secret plan');
  });

  it('reports cost per model and in total in the run record', async () => {
    harness = await startHarness(fake, scriptModels('costs'));
    const { data } = await call({ prompt: 'q' });
    const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
    expect(record.candidates[0].usage).toMatchObject({ cost: 0.0015, total_tokens: 150 });
    expect(record.synthesis.usage).toMatchObject({ cost: 0.0015 });
    expect(record.totals).toMatchObject({ cost: 0.006, total_tokens: 600 });
  });

  it('sends the per-call overrides upstream instead of the configured defaults', async () => {
    harness = await startHarness(fake);
    fake.on('override/x', { answer: 'x' });
    fake.on('override/synth', { answer: 'merged' });
    const { data } = await call({ prompt: 'q', models: ['override/x', 'override/x'], synthesizer_model: 'override/synth', temperature: 0.1, max_tokens: 321 });
    expect(data!.models.map((m) => m.model)).toEqual(['override/x', 'override/x']);
    expect(fake.requestsFor('override/x')).toHaveLength(2);
    expect(fake.requestsFor('override/x')[0]!.body).toMatchObject({ temperature: 0.1, max_tokens: 321 });
    expect(fake.requestsFor('override/synth')[0]!.body).toMatchObject({ temperature: 0.1, max_tokens: 321 });
  });

  it.each([
    ['a blank prompt', { prompt: '   \n' }, 'prompt must not be blank'],
    ['a prompt over the limit', { prompt: 'x'.repeat(101) }, 'longer than the limit of 100 characters'],
    ['a prompt of the wrong type', { prompt: 42 }, 'prompt must be a string'],
    ['a missing prompt', {}, 'prompt'],
    ['an empty model list', { prompt: 'q', models: [] }, 'models must name at least one model'],
    ['a temperature out of range', { prompt: 'q', temperature: 5 }, 'temperature'],
  ])('refuses %s with isError and a clear message, before any upstream call', async (_name, args, message) => {
    harness = await startHarness(fake, { PARALLEL_LLM_MAX_PROMPT_CHARS: '100' });
    const before = fake.requests.length;
    const { result, text } = await call(args);
    expect(result.isError).toBe(true);
    expect(text).toContain(message);
    expect(fake.requests.length).toBe(before);
  });

  it('still returns the answer, with a warning, when the output folder cannot be written', async () => {
    const blocker = path.join(await tempDir(), 'a-file');
    await writeFile(blocker, 'not a folder');
    harness = await startHarness(fake, { ...scriptModels('disk'), PARALLEL_LLM_OUTPUT_DIR: path.join(blocker, 'runs') });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBeFalsy();
    expect(data!.answer).toBe('synthesized for disk');
    expect(data!.run_folder).toBeNull();
    expect(data!.warnings[0]).toMatch(/could not create a run folder/);
    expect(text).toContain('Warning: could not create a run folder');
  });

  it('saves every answered candidate to the file its result names, however long the model id', async () => {
    harness = await startHarness(fake);
    const longIds = [`vendor/${'m'.repeat(300)}-a`, `vendor/${'m'.repeat(300)}-b`];
    longIds.forEach((id, i) => fake.on(id, { answer: `long id answer ${i}` }));
    const { data } = await call({ prompt: 'q', models: longIds });
    expect(data!.warnings).toEqual([]);
    for (const [i, model] of data!.models.entries()) expect(await readFile(model.file!, 'utf8')).toBe(`long id answer ${i}`);
  });

  it('still answers when final.md cannot be written, and neither the result nor run.json names it', async () => {
    harness = await startHarness(fake, scriptModels('final-fails'));
    fake.on('final-fails/synth', { answer: 'merged', delayMs: 300 });
    const pending = call({ prompt: 'q' });
    // While the synthesizer works, a folder takes final.md's name, so the rename onto it fails.
    await waitFor(() => fake.requestsFor('final-fails/synth').length === 1);
    const [runName] = (await readdir(harness.outputDir)).filter((name) => !name.startsWith('.'));
    await mkdir(path.join(harness.outputDir, runName!, 'final.md'));
    const { result, text, data } = await pending;
    expect(result.isError).toBeFalsy();
    expect(data!.answer).toBe('merged');
    expect(data!.synthesizer.file).toBeUndefined();
    expect(text).toMatch(/Warning: could not save final\.md/);
    const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
    expect(record.synthesis.file).toBeUndefined();
    expect(record.warnings[0]).toMatch(/could not save final\.md/);
  });

  it('writes nothing when saving is turned off', async () => {
    harness = await startHarness(fake, { ...scriptModels('nosave'), PARALLEL_LLM_SAVE_OUTPUTS: 'false' });
    const { data } = await call({ prompt: 'q' });
    expect(data!.run_folder).toBeNull();
    expect(await readdir(harness.outputDir)).toEqual([]);
  });

  it('aborts every upstream request of the call at once when the client cancels', async () => {
    harness = await startHarness(fake, { PARALLEL_LLM_MODELS: 'cancel/one,cancel/two,cancel/three' });
    fake.otherwise({ answer: 'slow', delayMs: 5000 });
    const abortedBefore = fake.aborted;
    const synthesesBefore = fake.requestsFor('s/synth').length;
    const controller = new AbortController();
    const pending = call({ prompt: 'q' }, { signal: controller.signal });
    await waitFor(() => fake.requestsFor('cancel/three').length === 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => fake.aborted === abortedBefore + 3);
    expect(fake.requestsFor('s/synth').length).toBe(synthesesBefore);
  });

  it('never runs more upstream requests at once than the concurrency limit', async () => {
    harness = await startHarness(fake, { PARALLEL_LLM_MODELS: 'lim/1,lim/2,lim/3,lim/4,lim/5', PARALLEL_LLM_MAX_CONCURRENCY: '2' });
    fake.otherwise({ answer: 'ok', delayMs: 50 });
    fake.maxInFlight = 0;
    const { data } = await call({ prompt: 'q' });
    expect(data!.status).toBe('complete');
    expect(fake.maxInFlight).toBe(2);
  });

  it('keeps concurrent calls in separate run folders', async () => {
    harness = await startHarness(fake, scriptModels('concurrent'));
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call({ prompt: `question ${i}` })));
    const folders = new Set(results.map(({ data }) => data!.run_folder));
    expect(folders.size).toBe(8);
    expect((await readdir(harness.outputDir)).filter((name) => !name.startsWith('.'))).toHaveLength(8);
    for (const { data } of results) {
      const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
      expect(results.map((r) => r.data!.run_folder)).toContain(data!.run_folder);
      expect(record.status).toBe('complete');
    }
  });

  it('never puts the API key in a result or a file', async () => {
    harness = await startHarness(fake, scriptModels('secret'));
    fake.on('secret/two', { status: 401, error: { code: 401, message: 'User not found.' } });
    const { result, data } = await call({ prompt: 'q' });
    expect(JSON.stringify(result)).not.toContain(VALID_KEY);
    for (const file of await readdir(data!.run_folder!)) {
      expect(await readFile(path.join(data!.run_folder!, file), 'utf8')).not.toContain(VALID_KEY);
    }
  });
});

describe('progress and the time budget', () => {
  it('reports each model as it finishes and the synthesis step, strictly increasing, none after the result', async () => {
    harness = await startHarness(fake, scriptModels('progress'));
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    let resultArrived = false;
    let afterResult = 0;
    await call(
      { prompt: 'q' },
      {
        onprogress: (update) => {
          updates.push(update);
          if (resultArrived) afterResult++;
        },
      },
    );
    resultArrived = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(afterResult).toBe(0);
    const progress = updates.map((u) => u.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
    const messages = updates.map((u) => u.message ?? '');
    for (const model of ['progress/one', 'progress/two', 'progress/three']) {
      expect(messages.some((m) => m.includes(model) && m.includes('answered in'))).toBe(true);
    }
    expect(messages.at(-1)).toContain('synthesizing 3 answers with progress/synth');
    expect(updates.every((u) => u.total === 5)).toBe(true);
  });

  it('sends heartbeats while waiting, naming who has answered', async () => {
    harness = await startHarness(fake, scriptModels('heartbeat'), { heartbeatMs: 100 });
    fake.on('heartbeat/three', { answer: 'slow one', delayMs: 800 });
    const times: number[] = [];
    const messages: string[] = [];
    await call({ prompt: 'q' }, { onprogress: (update) => (times.push(Date.now()), messages.push(update.message ?? '')) });
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps)).toBeLessThan(400);
    expect(messages.some((m) => m.includes('so far: heartbeat/one answered'))).toBe(true);
  });

  it('synthesizes without the models the budget cut off, names them, and saves their answers when they arrive', async () => {
    harness = await startHarness(fake, { ...scriptModels('budget'), PARALLEL_LLM_BUDGET_MS: '1500' });
    fake.on('budget/three', { answer: 'the late answer', delayMs: 2000 });
    const started = Date.now();
    const { text, data } = await call({ prompt: 'q' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(data!.status).toBe('partial');
    expect(data!.cut_off_models).toEqual(['budget/three']);
    expect(data!.models[2]).toMatchObject({ status: 'cut_off' });
    expect(text).toContain('Cut off by the 1.5 s time budget: budget/three; still running, their answers will be saved in');
    const synthesisPrompt = JSON.stringify(fake.requestsFor('budget/synth').at(-1)!.body);
    expect(synthesisPrompt).not.toContain('the late answer');

    const lateFile = path.join(data!.run_folder!, 'candidate-3_budget_three.md');
    await expect(stat(lateFile)).rejects.toThrow();
    await harness.app.idle();
    expect(await readFile(lateFile, 'utf8')).toBe('the late answer');
    const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
    expect(record.candidates[2]).toMatchObject({ status: 'answered', late: true });
  });

  it('reports a model that answers during synthesis as cut off, since synthesis never saw it, and records it as late', async () => {
    harness = await startHarness(fake, { ...scriptModels('mid'), PARALLEL_LLM_BUDGET_MS: '2000' });
    fake.on('mid/three', { answer: 'arrives during synthesis', delayMs: 1400 });
    fake.on('mid/synth', { answer: 'merged without three', delayMs: 500 });
    const { text, data } = await call({ prompt: 'q' });
    expect(JSON.stringify(fake.requestsFor('mid/synth').at(-1)!.body)).not.toContain('arrives during synthesis');
    expect(data!.models[2]).toMatchObject({ status: 'cut_off' });
    expect(data!.cut_off_models).toEqual(['mid/three']);
    expect(text).toContain('Models: 2 of 3 answered');
    await harness.app.idle();
    const record = JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'));
    expect(record.candidates[2]).toMatchObject({ status: 'answered', late: true });
  });

  it('learns the synthesizer’s time and keeps enough of the budget for it on the next call', async () => {
    harness = await startHarness(fake, { ...scriptModels('learn'), PARALLEL_LLM_BUDGET_MS: '3000' });
    fake.on('learn/three', { answer: 'slowish', delayMs: 1500 });
    fake.on('learn/synth', { answer: 'merged', delayMs: 1200 });
    const first = await call({ prompt: 'q' });
    expect(first.data!.models[2]!.status).toBe('answered');
    const second = await call({ prompt: 'q' });
    expect(second.data!.models[2]!.status).toBe('cut_off');
    expect(second.data!.status).toBe('partial');
  });

  it('does not let synthesis wait past the budget for a request slot held by cut-off models', async () => {
    harness = await startHarness(fake, { ...scriptModels('slots'), PARALLEL_LLM_MAX_CONCURRENCY: '2', PARALLEL_LLM_BUDGET_MS: '2000' });
    fake.on('slots/two', { answer: 'slow', delayMs: 4500 });
    fake.on('slots/three', { answer: 'slow', delayMs: 4500 });
    const started = Date.now();
    const { result, data } = await call({ prompt: 'q' });
    expect(Date.now() - started).toBeLessThan(2100);
    expect(result.isError).toBeFalsy();
    expect(data!.status).toBe('candidates_only');
    expect(data!.synthesizer.error).toMatchObject({ kind: 'timeout' });
    expect(data!.synthesizer.error!.message).toContain('no request slot came free');
    expect(data!.synthesizer.ms).toBeUndefined();
    harness.app.cleanup();
  });

  it('writes each late answer into run.json when it arrives, not when the last one does', async () => {
    harness = await startHarness(fake, { ...scriptModels('late-record'), PARALLEL_LLM_BUDGET_MS: '1000' });
    fake.on('late-record/two', { answer: 'late but here', delayMs: 1200 });
    fake.on('late-record/three', { hang: true });
    const { data } = await call({ prompt: 'q' });
    const recordFile = path.join(data!.run_folder!, 'run.json');
    await waitFor(() => fake.requestsFor('late-record/two').length === 1);
    let record: { candidates: Array<{ status: string; late?: boolean }> } = { candidates: [] };
    const started = Date.now();
    while (record.candidates[1]?.status !== 'answered' && Date.now() - started < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = JSON.parse(await readFile(recordFile, 'utf8'));
    }
    expect(record.candidates[1]).toMatchObject({ status: 'answered', late: true });
    expect(record.candidates[2]).toMatchObject({ status: 'cut_off' });
    harness.app.cleanup();
  });

  it('returns the answers that arrived when synthesis cannot finish within the budget', async () => {
    harness = await startHarness(fake, { ...scriptModels('slow-synth'), PARALLEL_LLM_BUDGET_MS: '1500' });
    fake.on('slow-synth/synth', { answer: 'too late', delayMs: 3000 });
    const started = Date.now();
    const { result, text, data } = await call({ prompt: 'q' });
    expect(Date.now() - started).toBeLessThan(1600);
    expect(result.isError).toBeFalsy();
    expect(data!.status).toBe('candidates_only');
    expect(data!.synthesizer.error).toMatchObject({ kind: 'timeout' });
    expect(text).toContain('answer 1 from slow-synth/one');
  });

  it('chooses the budget from the client’s name when none is configured', async () => {
    harness = await startHarness(fake, { ...scriptModels('claude'), PARALLEL_LLM_BUDGET_MS: '' }, { clientName: 'claude-ai' });
    const { data } = await call({ prompt: 'q' });
    expect(data!.budget_ms).toBe(55_000);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
