import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agreeingSynthesizer } from './support/agreeing-synthesizer.js';
import { VALID_KEY, startFakeOpenRouter } from './support/fake-openrouter.js';
import { callTool, startHarness, tempDir, type Harness } from './support/harness.js';
import { waitFor } from './support/wait.js';

const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
let harness: Harness;

afterAll(() => fake.close());
afterEach(async () => {
  await harness?.close();
  fake.otherwise({ answer: 'default answer' });
});

function scriptModels(prefix: string) {
  const models = [`${prefix}/one`, `${prefix}/two`, `${prefix}/three`];
  for (const [i, model] of models.entries()) fake.on(model, { answer: `answer ${i + 1} from ${model}`, delayMs: 20 * i });
  fake.on(`${prefix}/synth`, { answer: `synthesized for ${prefix}` });
  return { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` };
}

const call = (args: Record<string, unknown>, options?: Parameters<typeof callTool>[3]) =>
  callTool(harness, 'process_prompt', args, options);
const runRecord = async (folder: string) => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));

describe('the tools a client sees', () => {
  it('lists process_prompt (task-capable, with every override) and get_run, both with an output schema', async () => {
    harness = await startHarness(fake);
    const { tools } = await harness.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
    const [processPrompt, getRun] = tools;
    expect(Object.keys(processPrompt!.inputSchema.properties ?? {})).toEqual([
      'prompt',
      'models',
      'synthesizer_model',
      'temperature',
      'max_tokens',
      'strategy',
      'max_cost_usd',
      'reasoning_effort',
      'agreement',
      'follow_up_of',
      'fresh',
    ]);
    expect(processPrompt!.inputSchema.required).toEqual(['prompt']);
    expect(processPrompt!.execution).toEqual({ taskSupport: 'optional' });
    expect(processPrompt!.description).toContain('apply to every candidate model and to the synthesizer');
    expect(getRun!.inputSchema.required).toEqual(['run_id']);
    for (const tool of tools) expect(tool.outputSchema?.required).toContain('run_id');
    expect(harness.client.getInstructions()).toContain('call get_run');
  });

  it('declares every output field as required, with null for what does not apply', async () => {
    harness = await startHarness(fake);
    const [tool] = (await harness.client.listTools()).tools;
    const schema = tool!.outputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(schema.required.sort()).toEqual(Object.keys(schema.properties).sort());
  });
});

describe('process_prompt through the MCP client', () => {
  it('answers with a first line, the synthesis, every model’s outcome, cost, and a run folder holding every answer', async () => {
    harness = await startHarness(fake, scriptModels('happy'));
    const { result, text, data } = await call({ prompt: 'What is 2+2?' });
    expect(result.isError).toBeFalsy();
    const [first, , answer] = text.split('\n');
    expect(first).toBe('All 3 models answered; synthesized by happy/synth. Cost $0.0060.');
    expect(answer).toBe('synthesized for happy');
    expect(text).toContain('Models: 3 of 3 models answered');
    expect(text).toMatch(/Cost: \$0\.0060, 600 tokens/);
    expect(data).toMatchObject({
      status: 'complete',
      summary: first,
      answer: 'synthesized for happy',
      still_running: [],
      next_step: null,
      joined: 'new',
    });
    expect(data!.models.map((m) => [m.model, m.status])).toEqual([
      ['happy/one', 'answered'],
      ['happy/two', 'answered'],
      ['happy/three', 'answered'],
    ]);
    expect(data!.models[0]!.usage).toMatchObject({ total_tokens: 150, cost: 0.0015 });
    expect(data!.totals).toMatchObject({ total_tokens: 600, cost: 0.006 });
    expect(data!.synthesizer).toMatchObject({ model: 'happy/synth', status: 'answered' });

    const folder = data!.run_folder!;
    expect(path.basename(folder)).toBe(data!.run_id);
    expect(path.dirname(folder)).toBe(harness.outputDir);
    // The reply does not wait for final.md; the run settles once it is written.
    await harness.app.runs.idle();
    expect((await readdir(folder)).sort()).toEqual([
      'candidate-1_happy_one.md',
      'candidate-2_happy_two.md',
      'candidate-3_happy_three.md',
      'final.md',
      'run.json',
    ]);
    expect(await readFile(path.join(folder, 'candidate-2_happy_two.md'), 'utf8')).toBe('answer 2 from happy/two');
    expect(await readFile(path.join(folder, 'final.md'), 'utf8')).toBe('synthesized for happy');
    expect((await callTool(harness, 'get_run', { run_id: data!.run_id })).data!.synthesizer.file).toBe(path.join(folder, 'final.md'));
    expect(await runRecord(folder)).toMatchObject({
      format: 1,
      run_id: data!.run_id,
      status: 'complete',
      prompt: 'What is 2+2?',
      settings: { synthesizer_models: ['happy/synth'], max_tokens: 16384 },
      synthesis: { status: 'answered', model: 'happy/synth', file: 'final.md' },
    });
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
    expect(JSON.stringify(fake.requestsFor('err-text/synth')[0]!.body)).toContain('Error: this is how the Python exception reads');
  });

  it('says in its first line which model failed and why, and gives OpenRouter’s own message below', async () => {
    harness = await startHarness(fake, scriptModels('partial'));
    fake.on('partial/two', { status: 402, error: { code: 402, message: 'Insufficient credits' } });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBeFalsy();
    expect(text.split('\n')[0]).toBe(
      '2 of 3 models answered; partial/two failed: HTTP 402: Insufficient credits. Synthesized by partial/synth. Cost $0.0045.',
    );
    expect(data!.status).toBe('partial');
    expect(data!.models[1]).toMatchObject({ status: 'failed', error: { kind: 'http', status: 402, message: 'Insufficient credits' } });
    expect(data!.models[1]!.error!.advice).toMatch(/credits/);
    expect(text).toContain('Failed: partial/two: http 402: Insufficient credits. Add credits');
    expect(text).not.toMatch(/\.\./);
  });

  it('fails with isError and each model’s real error when no model answers, without calling the synthesizer', async () => {
    harness = await startHarness(fake, scriptModels('total'));
    fake.on('total/one', { status: 401, error: { code: 401, message: 'User not found.' } });
    fake.on('total/two', { status: 400, error: { code: 400, message: 'total/two is not a valid model ID' } });
    fake.on('total/three', { answer: '', json: true });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBe(true);
    expect(text.split('\n')[0]).toMatch(
      /^No model answered: total\/one failed: HTTP 401: User not found; total\/two failed: HTTP 400: .*; total\/three failed: answered with nothing\.$/,
    );
    expect(text).toContain('- total/one: http 401: User not found. Check OPENROUTER_API_KEY');
    expect(text).toContain('- total/three: empty');
    expect(data!.status).toBe('failed');
    expect(data!.synthesizer).toMatchObject({ status: 'skipped', reason: 'no candidate answered, so there was nothing to synthesize' });
    expect(fake.requestsFor('total/synth')).toHaveLength(0);
  });

  it('falls over to the next synthesizer, and names who synthesized and why the first did not', async () => {
    harness = await startHarness(fake, { ...scriptModels('failover'), PARALLEL_LLM_SYNTHESIZER_MODEL: 'failover/first,failover/second' });
    fake.on('failover/first', { status: 503, error: { code: 503, message: 'No instances available' } });
    fake.on('failover/second', { answer: 'merged by the second' });
    const { text, data } = await call({ prompt: 'q' });
    expect(data).toMatchObject({ status: 'complete', answer: 'merged by the second' });
    expect(data!.synthesizer).toMatchObject({ status: 'answered', model: 'failover/second' });
    expect(data!.synthesizer.attempts.map((a) => [a.model, a.status, a.error?.status ?? null])).toEqual([
      ['failover/first', 'failed', 503],
      ['failover/second', 'answered', null],
    ]);
    expect(text.split('\n')[0]).toBe('All 3 models answered; synthesized by failover/second. Cost $0.0060.');
    expect(text).toMatch(
      /Synthesized by failover\/second in \d+\.\d s\. Before it, failover\/first failed: http 503: No instances available\./,
    );
    expect(fake.requestsFor('failover/second')).toHaveLength(1);
  });

  it('returns every candidate, in both fields, with each synthesizer’s real error when all of them fail', async () => {
    harness = await startHarness(fake, { ...scriptModels('synth-fails'), PARALLEL_LLM_SYNTHESIZER_MODEL: 'synth-fails/a,synth-fails/b' });
    fake.on('synth-fails/a', { status: 400, error: { code: 400, message: 'This endpoint’s maximum context length is 8192 tokens' } });
    fake.on('synth-fails/b', { status: 502, error: { code: 502, message: 'Provider returned error' } });
    const { result, text, data } = await call({ prompt: 'q' });
    expect(result.isError).toBeFalsy();
    expect(data!.status).toBe('candidates_only');
    expect(data!.answer).toBeNull();
    expect(text.split('\n')[0]).toBe(
      "3 of 3 models answered, but no synthesis: synth-fails/a failed: HTTP 400: This endpoint’s maximum context length is 8192 tokens; synth-fails/b failed: HTTP 502: Provider returned error. The result holds the candidates' answers instead. Cost $0.0045.",
    );
    for (let i = 1; i <= 3; i++) {
      expect(text).toContain(`answer ${i} from synth-fails/`);
      expect(data!.models[i - 1]!.answer).toBe(`answer ${i} from synth-fails/${['one', 'two', 'three'][i - 1]}`);
    }
    expect(text).toContain(data!.run_folder!);
  });

  it('reports a reasoning model that ran out of max_tokens as a truncated failure, saves its reasoning, and never gives that cut-off thought to the synthesizer', async () => {
    harness = await startHarness(fake, scriptModels('reasoner'));
    fake.on('reasoner/two', { answer: '', reasoning: 'Step 1: consider the plan...', finishReason: 'length' });
    const { text, data } = await call({ prompt: 'q', max_tokens: 64 });
    expect(data!.status).toBe('partial');
    expect(data!.models[1]).toMatchObject({ status: 'failed', error: { kind: 'truncated' } });
    expect(data!.models[1]!.error!.message).toContain('max_tokens (64) ran out before any answer');
    expect(data!.models[1]!.error!.advice).toMatch(/Raise max_tokens/);
    expect(text).toContain('reasoner/two failed: used all of max_tokens before answering');
    expect(text).not.toContain('Its reasoning went to the synthesizer');
    expect(data!.models[1]!.reasoning_file).toBe(path.join(data!.run_folder!, 'candidate-2_reasoner_two.reasoning.md'));
    expect(await readFile(data!.models[1]!.reasoning_file!, 'utf8')).toBe('Step 1: consider the plan...');
    const synthesis = (fake.requestsFor('reasoner/synth')[0]!.body.messages as Array<{ content: string }>)[0]!.content;
    expect(synthesis).not.toContain('Step 1: consider the plan');
    expect(synthesis).toContain('2 AI models were given the same problem');
  });

  it('gives the synthesizer, labelled, the reasoning of a model that finished without putting its answer in the content', async () => {
    harness = await startHarness(fake, scriptModels('inreasoning'));
    fake.on('inreasoning/two', { answer: '', reasoning: 'The answer is 42.', finishReason: 'stop' });
    const { text } = await call({ prompt: 'q' });
    expect(text).toContain('Its reasoning went to the synthesizer in place of an answer.');
    const synthesis = (fake.requestsFor('inreasoning/synth')[0]!.body.messages as Array<{ content: string }>)[0]!.content;
    expect(synthesis).toContain('### Candidate 2: inreasoning/two (no answer: its reasoning only)\n\nThe answer is 42.');
  });

  it('keeps the reasoning of a model that answered out of synthesis, and saves it next to the answer', async () => {
    harness = await startHarness(fake, scriptModels('thinker'));
    fake.on('thinker/one', { answer: 'the answer', reasoning: 'private musing' });
    const { data } = await call({ prompt: 'q' });
    expect(await readFile(data!.models[0]!.reasoning_file!, 'utf8')).toBe('private musing');
    expect(JSON.stringify(fake.requestsFor('thinker/synth')[0]!.body)).not.toContain('private musing');
  });

  it('does not synthesize from reasoning alone when no model answered', async () => {
    harness = await startHarness(fake, { PARALLEL_LLM_MODELS: 'only/thinks', PARALLEL_LLM_SYNTHESIZER_MODEL: 'only/synth' });
    fake.on('only/thinks', { answer: '', reasoning: 'hmm', finishReason: 'length' });
    const { data } = await call({ prompt: 'q' });
    expect(data!.status).toBe('failed');
    expect(fake.requestsFor('only/synth')).toHaveLength(0);
  });

  it('reports cost per model and in total in the run record', async () => {
    harness = await startHarness(fake, scriptModels('costs'));
    const { data } = await call({ prompt: 'q' });
    await waitFor(async () => (await runRecord(data!.run_folder!)).status === 'complete');
    const record = await runRecord(data!.run_folder!);
    expect(record.candidates[0].usage).toMatchObject({ cost: 0.0015, total_tokens: 150 });
    expect(record.synthesis.attempts[0].usage).toMatchObject({ cost: 0.0015 });
    expect(record.totals).toMatchObject({ cost: 0.006, total_tokens: 600 });
  });

  it('sends the per-call overrides upstream, to the synthesizer too', async () => {
    harness = await startHarness(fake);
    fake.on('override/x', { answer: 'x' });
    fake.on('override/synth', { answer: 'merged' });
    const { data } = await call({
      prompt: 'q',
      models: ['override/x', 'override/x'],
      synthesizer_model: ['override/synth'],
      temperature: 0.1,
      max_tokens: 321,
    });
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
    ['a blank synthesizer', { prompt: 'q', synthesizer_model: ' ' }, 'a model id must not be blank'],
  ])('refuses %s with isError and a clear message, before any upstream call', async (_name, args, message) => {
    harness = await startHarness(fake, { PARALLEL_LLM_MAX_PROMPT_CHARS: '100' });
    const before = fake.requests.length;
    const { result, text } = await call(args);
    expect(result.isError).toBe(true);
    expect(text).toContain(message);
    expect(fake.requests.length).toBe(before);
  });

  it('caps the answer a result carries, says so, and keeps the whole of it in final.md', async () => {
    harness = await startHarness(fake, { ...scriptModels('cap'), PARALLEL_LLM_MAX_ANSWER_CHARS: '1000' });
    const long = 'word '.repeat(1000);
    fake.on('cap/synth', { answer: long });
    const { text, data } = await call({ prompt: 'q' });
    expect(data).toMatchObject({ answer_chars: 5000, answer_cut: true });
    expect(data!.answer!.startsWith(long.slice(0, 1000))).toBe(true);
    expect(data!.answer).toMatch(/\[\.\.\. cut at 1,000 of 5,000 characters; the whole answer is saved in .*\]$/);
    expect(text.length).toBeLessThan(2000);
    await harness.app.runs.idle();
    expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8')).toBe(long);
  });

  it('writes a long answer to its file as it arrives, holds only its start, and tells the synthesizer its whole length', async () => {
    const limits = {
      PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '30000',
      PARALLEL_LLM_MAX_PROMPT_CHARS: '10000',
      PARALLEL_LLM_MAX_ANSWER_CHARS: '1000',
    };
    harness = await startHarness(fake, { ...scriptModels('stream'), ...limits });
    const long = `${'é'.repeat(49_999)}END`;
    fake.on('stream/two', { answer: long, chunks: 37 });
    const { data } = await call({ prompt: 'q' });
    expect(data!.models[1]).toMatchObject({ status: 'answered', chars: long.length });
    expect(await readFile(data!.models[1]!.file!, 'utf8')).toBe(long);
    const synthesis = JSON.stringify(fake.requestsFor('stream/synth')[0]!.body);
    expect(synthesis).toContain(`characters omitted; the full answer is saved in ${data!.models[1]!.file}`);
    expect(synthesis).toMatch(/\d+ of 50,?002 characters omitted/);
    expect(synthesis).not.toContain('END');
  });

  it('keeps a character whose surrogate pair a stream splits between two events whole, in its file and for the synthesis', async () => {
    harness = await startHarness(fake, scriptModels('pairs'));
    // 7-unit events over 2-unit emoji: every other event ends in the middle of a pair.
    const answer = `${'😀a'.repeat(20_000)}end`;
    fake.on('pairs/two', { answer, chunks: Math.ceil(answer.length / 7) });
    const { data } = await call({ prompt: 'q' });
    expect(await readFile(data!.models[1]!.file!, 'utf8')).toBe(answer);
    const synthesis = String((fake.requestsFor('pairs/synth')[0]!.body.messages as Array<{ content: string }>)[0]!.content);
    expect(synthesis).toContain('😀a'.repeat(400));
    expect(synthesis).not.toContain('\ufffd');
  });

  it('leaves no file of a candidate that failed mid-stream, and no temporary file behind', async () => {
    harness = await startHarness(fake, scriptModels('midstream'));
    fake.on('midstream/two', {
      sse: [
        'data: {"choices":[{"delta":{"content":"half an ans"}}]}',
        '',
        'data: {"error":{"code":502,"message":"Provider disconnected"},"choices":[{"delta":{"content":""},"finish_reason":"error"}]}',
        '',
      ],
    });
    const { data } = await call({ prompt: 'q' });
    expect(data!.models[1]).toMatchObject({ status: 'failed', file: null });
    await harness.app.runs.idle();
    expect((await readdir(data!.run_folder!)).filter((name) => name.includes('midstream_two'))).toEqual([]);
    expect(await readdir(path.join(harness.outputDir, '.staging'))).toEqual([]);
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
    // With nothing on disk, the finished run is kept here: found by id, and not paid for twice.
    await harness.app.runs.idle();
    const later = await callTool(harness, 'get_run', { run_id: data!.run_id });
    expect(later.data).toMatchObject({ status: 'complete', answer: 'synthesized for disk' });
    const again = await call({ prompt: 'q' });
    expect(again.data).toMatchObject({ run_id: data!.run_id, joined: 'attached', answer: 'synthesized for disk' });
    expect(fake.requestsFor('disk/synth')).toHaveLength(1);
  });

  it('saves every answered candidate to the file its result names, however long the model id', async () => {
    harness = await startHarness(fake);
    const longIds = [`vendor/${'m'.repeat(300)}-a`, `vendor/${'m'.repeat(300)}-b`];
    for (const [i, id] of longIds.entries()) fake.on(id, { answer: `long id answer ${i}` });
    fake.on('long/synth', agreeingSynthesizer('merged'));
    const { data } = await call({ prompt: 'q', models: longIds, synthesizer_model: 'long/synth' });
    expect(data!.warnings).toEqual([]);
    for (const [i, model] of data!.models.entries()) expect(await readFile(model.file!, 'utf8')).toBe(`long id answer ${i}`);
  });

  it('still answers when final.md cannot be written; run.json does not name it, and says why', async () => {
    harness = await startHarness(fake, scriptModels('final-fails'));
    fake.on('final-fails/synth', agreeingSynthesizer('merged', { delayMs: 300 }));
    const pending = call({ prompt: 'q' });
    // While the synthesizer works, a folder takes final.md's name, so the rename onto it fails.
    await waitFor(() => fake.requestsFor('final-fails/synth').length === 1);
    const [runName] = (await readdir(harness.outputDir)).filter((name) => !name.startsWith('.'));
    await mkdir(path.join(harness.outputDir, runName!, 'final.md'));
    const { result, data } = await pending;
    expect(result.isError).toBeFalsy();
    expect(data!.answer).toBe('merged');
    expect(data!.synthesizer.file).toBeNull();
    await harness.app.runs.idle();
    // final.md is not on disk, so the run stays in memory, where its answer is.
    const later = await callTool(harness, 'get_run', { run_id: data!.run_id });
    expect(later.data).toMatchObject({ status: 'complete', answer: 'merged' });
    expect(later.data!.synthesizer.file).toBeNull();
    expect(later.text).toMatch(/Warning: could not save final\.md/);
    const record = await runRecord(data!.run_folder!);
    expect(record.synthesis.file).toBeUndefined();
    expect(record.warnings[0]).toMatch(/could not save final\.md/);
  });

  it('writes nothing when saving is turned off', async () => {
    harness = await startHarness(fake, { ...scriptModels('nosave'), PARALLEL_LLM_SAVE_OUTPUTS: 'false' });
    const { data, text } = await call({ prompt: 'q' });
    expect(data!.run_folder).toBeNull();
    expect(text).toContain('(not saved to disk)');
    expect(await readdir(harness.outputDir)).toEqual([]);
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
    expect(results.map(({ data }) => data!.status)).toEqual(Array(8).fill('complete'));
    expect(new Set(results.map(({ data }) => data!.run_folder)).size).toBe(8);
    expect((await readdir(harness.outputDir)).filter((name) => !name.startsWith('.'))).toHaveLength(8);
  });

  it('never puts the API key in a result or a file, even when an upstream echoes it back or the prompt holds it', async () => {
    harness = await startHarness(fake, scriptModels('secret'));
    fake.on('secret/two', {
      fromRequest: (request) => ({
        status: 400,
        error: { code: 400, message: `Invalid header: authorization=${request.headers.authorization}` },
      }),
    });
    fake.on('secret/three', { fromRequest: (request) => ({ answer: `You sent ${request.headers.authorization}` }) });
    const { result, data } = await call({ prompt: `Is ${VALID_KEY} a valid key?` });
    expect(JSON.stringify(result)).not.toContain(VALID_KEY);
    await harness.app.runs.idle();
    for (const file of await readdir(data!.run_folder!)) {
      expect(await readFile(path.join(data!.run_folder!, file), 'utf8')).not.toContain(VALID_KEY);
    }
  });
});

describe('where a result carries the answer, by client', () => {
  it.each([
    ['claude-ai', 'content', false, true],
    ['claude-code', 'structured_content', true, false],
    ['Visual Studio Code', 'structured_content', true, false],
    ['some-new-client', 'both', true, true],
  ] as const)('for %s: in %s', async (clientName, answersIn, inStructured, inText) => {
    harness = await startHarness(fake, scriptModels(`layout-${answersIn}`), { clientName });
    const { text, data } = await call({ prompt: 'q' });
    const answer = `synthesized for layout-${answersIn}`;
    expect(data!.answers_in).toBe(answersIn);
    expect(data!.answer).toBe(inStructured ? answer : null);
    expect(text.includes(answer)).toBe(inText);
    expect(text.split('\n')[0]).toBe(`All 3 models answered; synthesized by layout-${answersIn}/synth. Cost $0.0060.`);
  });
});
