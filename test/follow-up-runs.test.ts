import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach, type Harness } from './support/harness.js';

/**
 * follow_up_of (SPEC §10) against the fake: each model continues its own conversation from the
 * earlier run, with the final answer in view; the synthesizer reads the earlier exchange; an
 * unknown or unfinished run is refused before any request.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const start = harnessesClosedAfterEach();

afterAll(() => fake.close());

function panel(prefix: string, answers: string[] = ['one said 4', 'two said 5']) {
  const models = answers.map((_, i) => `${prefix}/m${i + 1}`);
  for (const [i, model] of models.entries()) fake.on(model, { answer: answers[i]! });
  fake.on(`${prefix}/synth`, { answer: 'FINAL: 4' });
  return { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` };
}

const ask = (harness: Harness, args: Record<string, unknown>) => callTool(harness, 'process_prompt', args);
const messages = (model: string, nth: number) => fake.requestsFor(model)[nth]!.body.messages as Array<{ role: string; content: string }>;

describe('a follow-up on a finished run', () => {
  it('sends each model the earlier prompt, its own answer and the final answer as the conversation so far, then the new prompt', async () => {
    const harness = await start(fake, panel('fu'));
    const earlier = await ask(harness, { prompt: 'What is 2+2?' });
    await harness.app.runs.idle();
    const { result, text, data } = await ask(harness, { prompt: 'And 2+3?', follow_up_of: earlier.data!.run_id });
    expect(result.isError).toBeFalsy();

    expect(messages('fu/m1', 1)).toEqual([
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: 'one said 4' },
      {
        role: 'user',
        content:
          'Several AI models answered that question, you among them. The final answer, combining their answers, was:\n\nFINAL: 4\n\n---\n\nAnd 2+3?',
      },
    ]);
    expect(messages('fu/m2', 1)[1]).toEqual({ role: 'assistant', content: 'two said 5' });
    const synthesis = messages('fu/synth', 1)[0]!.content;
    expect(synthesis).toContain(
      '### An earlier question\n\nWhat is 2+2?\n\n### The final answer to it\n\nFINAL: 4\n\n### The follow-up question to answer now\n\nAnd 2+3?',
    );

    expect(data!.follow_up_of).toBe(earlier.data!.run_id);
    expect(data!.run_id).not.toBe(earlier.data!.run_id);
    expect(text).toContain(`Follows up run ${earlier.data!.run_id}.`);
    await harness.app.runs.idle();
    expect(JSON.parse(await readFile(path.join(data!.run_folder!, 'run.json'), 'utf8'))).toMatchObject({
      follow_up_of: earlier.data!.run_id,
      prompt: 'And 2+3?',
    });
  });

  it('gives a model new to the conversation the final answer as its earlier turn', async () => {
    const harness = await start(fake, panel('fu-new'));
    const earlier = await ask(harness, { prompt: 'What is 2+2?' });
    await harness.app.runs.idle();
    fake.on('fu-new/newcomer', { answer: 'new' });
    await ask(harness, { prompt: 'And 2+3?', follow_up_of: earlier.data!.run_id, models: ['fu-new/newcomer'] });
    expect(messages('fu-new/newcomer', 0)).toEqual([
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: 'FINAL: 4' },
      { role: 'user', content: 'And 2+3?' },
    ]);
  });

  it('shortens the earlier turns to fit PARALLEL_LLM_MAX_PROMPT_CHARS, and says so', async () => {
    const harness = await start(fake, { ...panel('fu-long', ['x'.repeat(5000), 'y'.repeat(100)]), PARALLEL_LLM_MAX_PROMPT_CHARS: '2000' });
    const earlier = await ask(harness, { prompt: 'Long?' });
    await harness.app.runs.idle();
    const { data } = await ask(harness, { prompt: 'Shorter?', follow_up_of: earlier.data!.run_id });
    const sent = messages('fu-long/m1', 1);
    expect(sent.map((message) => message.content).join('').length).toBeLessThanOrEqual(2000);
    expect(sent[1]!.content).toMatch(
      /^x+\n\n\[\.\.\. \d+ characters of this earlier turn left out to fit PARALLEL_LLM_MAX_PROMPT_CHARS\]$/,
    );
    expect(data!.warnings).toContain(
      "the follow-up's conversation was longer than PARALLEL_LLM_MAX_PROMPT_CHARS (2000 characters), so the earlier turns were shortened to fit",
    );
  });
});

describe('a follow-up that cannot be', () => {
  it.each([
    [
      'an unknown run',
      '2020-01-01T00-00-00.000Z_00000000',
      'Cannot follow up: there is no run 2020-01-01T00-00-00.000Z_00000000 to follow up',
    ],
    ['a malformed id', '../etc', 'Cannot follow up: follow_up_of "../etc" is not a run id'],
  ])('is refused for %s, before any request', async (_name, id, message) => {
    const harness = await start(fake, panel('fu-bad'));
    const before = fake.requests.length;
    const { result, text } = await ask(harness, { prompt: 'q', follow_up_of: id });
    expect(result.isError).toBe(true);
    expect(text.startsWith(message)).toBe(true);
    expect(fake.requests.length).toBe(before);
  });

  it('is refused while the earlier run is still running, and when it failed', async () => {
    const env = { ...panel('fu-busy'), PARALLEL_LLM_BUDGET_MS: '100' };
    fake.on('fu-busy/m2', { answer: 'slow', delayMs: 1000 });
    const harness = await start(fake, env);
    const running = await ask(harness, { prompt: 'q' });
    expect(running.data!.status).toBe('running');
    const refused = await ask(harness, { prompt: 'next', follow_up_of: running.data!.run_id });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toBe(
      `Cannot follow up: run ${running.data!.run_id} is still running: wait for it to finish (get_run), then ask the follow-up.`,
    );

    fake.on('fu-busy/down', { status: 400, error: { code: 400, message: 'no such model' } });
    const failed = await ask(harness, { prompt: 'q', models: ['fu-busy/down'] });
    expect(failed.data!.status).toBe('failed');
    await harness.app.runs.idle();
    const nothing = await ask(harness, { prompt: 'next', follow_up_of: failed.data!.run_id });
    expect(nothing.text).toBe(`Cannot follow up: run ${failed.data!.run_id} failed: no model answered, so there is nothing to follow up.`);
  });
});
