import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../src/run/record.js';
import { anonymise } from '../src/prompts/anonymise.js';
import { startFakeOpenRouter, type Behaviour, type RecordedRequest } from './support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach, tempDir, type Harness } from './support/harness.js';
import { waitFor } from './support/wait.js';

/**
 * The strategies (SPEC §10) against the fake upstream: what the judge, the rankers and the
 * synthesizer receive (anonymised: letters, never a model name), what the result and run.json
 * say of it, the reasoning effort sent with every request, and Self-MoA's repeated models.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const start = harnessesClosedAfterEach();

afterAll(() => fake.close());

const WORDS = ['ONE', 'TWO', 'THREE'];
/** Three candidates named after `prefix`, each answering "<N>-ANSWER", and a synthesizer. */
function panel(prefix: string, then: Partial<Record<'one' | 'two' | 'three', Behaviour>> = {}) {
  const models = ['one', 'two', 'three'].map((name) => `${prefix}/${name}`);
  models.forEach((model, i) => {
    const name = model.split('/')[1] as 'one' | 'two' | 'three';
    fake.on(model, { answer: `${WORDS[i]}-ANSWER`, delayMs: 10 * i }, ...(then[name] ? [then[name]] : []));
  });
  return { env: { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` }, models };
}

const ask = (harness: Harness, args: Record<string, unknown>) =>
  callTool(harness, 'process_prompt', { prompt: 'Which is right?', ...args });
const userText = (request: RecordedRequest) =>
  (request.body.messages as Array<{ content: string }>).map((message) => message.content).join('\n');
const runJson = async (folder: string): Promise<RunRecord> => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));

/** The lettered answers a step's prompt shows, in the order it shows them. */
function lettered(prompt: string): Array<{ label: string; content: string }> {
  return [...prompt.matchAll(/### Candidate ([A-Z]+)\n\n([^\n]*)/g)].map((match) => ({ label: match[1]!, content: match[2]! }));
}
const letterOf = (prompt: string, content: string) => lettered(prompt).find((answer) => answer.content === content)!.label;

/** A council member that ranks TWO's answer first, then THREE's, then ONE's, by their letters in its prompt. */
const ranker: Behaviour = {
  fromRequest: (request) => {
    const shown = lettered(userText(request));
    const order = ['TWO-ANSWER', 'THREE-ANSWER', 'ONE-ANSWER'].flatMap((content) =>
      shown.filter((answer) => answer.content === content).map((answer) => answer.label),
    );
    return {
      answer: `Both are fine.\nRANKING: ${order.join(' > ')}`,
      usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220, cost: 0.001 },
    };
  },
};

describe('strategy judge', () => {
  it('shows the judge the answers anonymised in the run’s shuffled order, and returns the chosen answer with its fixes, naming its model and the reason', async () => {
    const { env, models } = panel('judge');
    fake.on('judge/synth', {
      fromRequest: (request) => ({
        answer: `CHOICE: ${letterOf(userText(request), 'TWO-ANSWER')}\nREASON: It checks out.\nANSWER:\nTWO-ANSWER, with its sign fixed.`,
      }),
    });
    const harness = await start(fake, env);
    const { result, text, data } = await ask(harness, { strategy: 'judge' });
    expect(result.isError).toBeFalsy();

    const [judged] = fake.requestsFor('judge/synth');
    const prompt = userText(judged!);
    for (const model of models) expect(prompt).not.toContain(model);
    expect(prompt).not.toContain(harness.outputDir);
    const shownOrder = lettered(prompt).map((answer) => WORDS.indexOf(answer.content.replace('-ANSWER', '')));
    const expectedOrder = anonymise(
      data!.run_id,
      [0, 1, 2].map((index) => ({ index, model: '', content: '' })),
    ).map((answer) => answer.index);
    expect(shownOrder).toEqual(expectedOrder);
    expect(lettered(prompt).map((answer) => answer.label)).toEqual(['A', 'B', 'C']);

    expect(data!.answer).toBe('TWO-ANSWER, with its sign fixed.');
    expect(data!.strategy).toBe('judge');
    expect(data!.judge).toMatchObject({ chosen_index: 2, chosen_model: 'judge/two', reason: 'It checks out.', warnings: [] });
    expect(text.split('\n')[0]).toBe(
      'All 3 models answered; judged by judge/synth, who chose candidate 2 (judge/two): It checks out. Cost $0.0060.',
    );
    expect(text).toContain('Judge: judge/synth chose candidate 2 (judge/two). Reason: It checks out.');
    await harness.app.runs.idle();
    const record = await runJson(data!.run_folder!);
    expect(record.settings.strategy).toBe('judge');
    expect(record.synthesis.verdict).toEqual({
      choice_index: 2,
      choice_model: 'judge/two',
      reason: 'It checks out.',
      warnings: [],
      reply_file: 'judge.reply.md',
    });
    expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8')).toBe('TWO-ANSWER, with its sign fixed.');
    expect(await readFile(path.join(data!.run_folder!, 'judge.reply.md'), 'utf8')).toMatch(
      /^CHOICE: [ABC]\nREASON: It checks out\.\nANSWER:\n/,
    );
  });

  it('falls over to the next judge when one fails, and keeps the whole reply, with a warning, when no choice can be read', async () => {
    const { env } = panel('judge-over');
    fake.on('judge-over/first', { status: 503, error: { code: 503, message: 'No instances available' } });
    fake.on('judge-over/second', { answer: 'They all look fine to me.' });
    const harness = await start(fake, { ...env, PARALLEL_LLM_SYNTHESIZER_MODEL: 'judge-over/first,judge-over/second' });
    const { data } = await ask(harness, { strategy: 'judge' });
    expect(data!.synthesizer.attempts.map((attempt) => [attempt.model, attempt.status])).toEqual([
      ['judge-over/first', 'failed'],
      ['judge-over/second', 'answered'],
    ]);
    expect(data!.answer).toBe('They all look fine to me.');
    expect(data!.judge).toMatchObject({ chosen_index: null, chosen_model: null });
    expect(data!.warnings).toContain('the judge named no candidate (no CHOICE line), so its whole reply is the answer');
    expect(lettered(userText(fake.requestsFor('judge-over/second')[0]!))).toHaveLength(3);
  });
});

describe('strategy council', () => {
  it('has each model rank the others’ anonymised answers, then the synthesizer merge with the combined ranking in view', async () => {
    const { env, models } = panel('council', { one: ranker, two: ranker, three: ranker });
    fake.on('council/synth', { answer: 'MERGED' });
    const harness = await start(fake, env);
    const { text, data } = await ask(harness, { strategy: 'council' });
    expect(data!.status).toBe('complete');

    models.forEach((model, i) => {
      const requests = fake.requestsFor(model);
      expect(requests).toHaveLength(2);
      const prompt = userText(requests[1]!);
      for (const name of models) expect(prompt).not.toContain(name);
      expect(
        lettered(prompt)
          .map((answer) => answer.content)
          .sort(),
      ).toEqual(
        WORDS.filter((_, other) => other !== i)
          .map((word) => `${word}-ANSWER`)
          .sort(),
      );
      expect(prompt).toContain('RANKING: <letter> > <letter>');
    });
    const synthesis = userText(fake.requestsFor('council/synth')[0]!);
    for (const name of models) expect(synthesis).not.toContain(name);
    expect(synthesis).toContain(
      `## Peer ranking, best first\n\n1. Candidate ${letterOf(synthesis, 'TWO-ANSWER')}: score 1.00 (ranked by 2 reviewers, first for 2)`,
    );

    expect(data!.answer).toBe('MERGED');
    expect(data!.council!.rankings.map((entry) => [entry.ranker_model, entry.ranking.map((ranked) => ranked.model)])).toEqual(
      expect.arrayContaining([
        ['council/one', ['council/two', 'council/three']],
        ['council/two', ['council/three', 'council/one']],
        ['council/three', ['council/two', 'council/one']],
      ]),
    );
    expect(data!.council!.combined.map((entry) => entry.model)).toEqual(['council/two', 'council/three', 'council/one']);
    // Three answers, three rankings and one synthesis: every step is in the totals.
    expect(data!.totals.cost).toBeCloseTo(3 * 0.0015 + 3 * 0.001 + 0.0015, 8);
    expect(text.split('\n')[0]).toBe('All 3 models answered; ranked by each other, then synthesized by council/synth. Cost $0.0090.');
    expect(text).toContain('- candidate 1 (council/one): candidate 2 (council/two) > candidate 3 (council/three)');
    await harness.app.runs.idle();
    const record = await runJson(data!.run_folder!);
    expect(record.council!.rankings).toHaveLength(3);
    expect(record.council!.aggregate!.map((entry) => entry.index)).toEqual([2, 3, 1]);
    expect((await readdir(data!.run_folder!)).filter((name) => name.endsWith('.ranking.md'))).toHaveLength(3);
  });

  it('is a plain synthesis, with a note, when fewer than three models answered: nobody ranks', async () => {
    const { env } = panel('few', { one: ranker, two: ranker });
    fake.on('few/three', { status: 400, error: { code: 400, message: 'bad model' } });
    fake.on('few/synth', { answer: 'MERGED' });
    const harness = await start(fake, env);
    const { data } = await ask(harness, { strategy: 'council' });
    expect(data!.status).toBe('partial');
    expect(fake.requestsFor('few/one')).toHaveLength(1);
    expect(data!.council).toMatchObject({ rankings: [], combined: [], note: expect.stringContaining('only 2 of the candidates answered') });
    expect(userText(fake.requestsFor('few/synth')[0]!)).not.toContain('Peer ranking');
  });

  it('leaves out a member whose ranking failed, and records why', async () => {
    const { env } = panel('council-fail', {
      one: ranker,
      two: ranker,
      three: { status: 500, error: { code: 500, message: 'upstream broke' } },
    });
    fake.on('council-fail/synth', { answer: 'MERGED' });
    const harness = await start(fake, env);
    const { data } = await ask(harness, { strategy: 'council' });
    expect(data!.status).toBe('complete');
    const failed = data!.council!.rankings.find((entry) => entry.ranker_model === 'council-fail/three')!;
    expect(failed).toMatchObject({ status: 'failed', ranking: [], error: { status: 500 } });
    expect(data!.council!.combined.map((entry) => entry.rankers)).toEqual(expect.arrayContaining([1, 1, 2]));
  });

  it('never asks a council member again when its stopped run is resumed: its saved ranking is reused, not paid twice', async () => {
    const outputDir = await tempDir();
    const { env: panelEnv, models } = panel('council-resume', { one: ranker, two: ranker, three: ranker });
    const env = { ...panelEnv, PARALLEL_LLM_BUDGET_MS: '300' };
    fake.on('council-resume/synth', { hang: true, keepAliveEveryMs: 50 });
    const first = await start(fake, env, { outputDir });
    const { data } = await ask(first, { strategy: 'council' });
    await waitFor(async () => (await runJson(data!.run_folder!)).synthesis.status === 'running');
    await first.app.runs.interruptAll();

    fake.on('council-resume/synth', { answer: 'MERGED' });
    const second = await start(fake, { ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { data: resumed } = await ask(second, { strategy: 'council' });
    expect(resumed).toMatchObject({ run_id: data!.run_id, joined: 'resumed', status: 'complete', answer: 'MERGED' });
    for (const model of models) expect(fake.requestsFor(model)).toHaveLength(2);
    expect(resumed!.new_cost).toBeCloseTo(0.0015, 8);
    expect(resumed!.council!.rankings).toHaveLength(3);
  });
});

describe('Self-MoA: a model repeated in models', () => {
  it('asks each repeat as its own candidate, saved in its own file, and lets the judge read each on its own', async () => {
    fake.on('moa/best', { answer: 'BEST-ANSWER' });
    fake.on('moa/synth', {
      fromRequest: (request) => ({ answer: `CHOICE: ${lettered(userText(request))[0]!.label}\nREASON: first\nANSWER:\nok` }),
    });
    const harness = await start(fake, { PARALLEL_LLM_MODELS: 'moa/best,moa/best,moa/best', PARALLEL_LLM_SYNTHESIZER_MODEL: 'moa/synth' });
    const { data } = await ask(harness, { strategy: 'judge' });
    expect(fake.requestsFor('moa/best')).toHaveLength(3);
    expect(data!.models.map((model) => model.file && path.basename(model.file))).toEqual([
      'candidate-1_moa_best.md',
      'candidate-2_moa_best.md',
      'candidate-3_moa_best.md',
    ]);
    expect(lettered(userText(fake.requestsFor('moa/synth')[0]!))).toHaveLength(3);
  });
});

describe('reasoning_effort', () => {
  it('is sent as OpenRouter’s reasoning parameter to every candidate and step, and the reasoning tokens are shown per model', async () => {
    const { env, models } = panel('effort', { one: ranker, two: ranker, three: ranker });
    fake.on('effort/one', { answer: 'ONE-ANSWER', reasoning: 'thinking hard' }, ranker);
    fake.on('effort/synth', { answer: 'MERGED' });
    const harness = await start(fake, { ...env, PARALLEL_LLM_REASONING_EFFORT: 'low' });
    const { text, data } = await ask(harness, { strategy: 'council', reasoning_effort: 'high' });
    const sent = [...models, 'effort/synth'].flatMap((model) => fake.requestsFor(model));
    expect(sent).toHaveLength(7);
    for (const request of sent) expect(request.body.reasoning).toEqual({ effort: 'high' });
    expect(data!.reasoning_effort).toBe('high');
    expect(data!.models[0]!.usage!.reasoning_tokens).toBe(20);
    expect(text).toContain('Reasoning tokens (billed as output): effort/one 20.');
    expect(text).toContain('Strategy: council; reasoning effort: high.');
  });

  it('comes from PARALLEL_LLM_REASONING_EFFORT when the call sets none, and is not sent at all when neither does', async () => {
    const withSetting = panel('effort-env');
    fake.on('effort-env/synth', { answer: 'MERGED' });
    await ask(await start(fake, { ...withSetting.env, PARALLEL_LLM_REASONING_EFFORT: 'minimal' }), {});
    for (const model of [...withSetting.models, 'effort-env/synth'])
      expect(fake.requestsFor(model)[0]!.body.reasoning).toEqual({ effort: 'minimal' });

    const without = panel('effort-none');
    fake.on('effort-none/synth', { answer: 'MERGED' });
    const { data } = await ask(await start(fake, without.env), {});
    for (const model of [...without.models, 'effort-none/synth']) expect(fake.requestsFor(model)[0]!.body).not.toHaveProperty('reasoning');
    expect(data!.reasoning_effort).toBeNull();
  });
});

describe('per-call strategy inputs', () => {
  it.each([
    [{ strategy: 'vote' }, 'strategy must be one of synthesize, judge, council (got "vote")'],
    [{ max_cost_usd: -1 }, 'max_cost_usd must be above 0'],
    [{ reasoning_effort: 'max' }, 'reasoning_effort must be one of minimal, low, medium, high (got "max")'],
    [{ follow_up_of: 42 }, 'follow_up_of must be a string'],
  ])('refuses %j with a message naming the input, before any request', async (args, message) => {
    const harness = await start(fake, panel('bad-input').env);
    const before = fake.requests.length;
    const { result, text } = await ask(harness, args);
    expect(result.isError).toBe(true);
    expect(text).toContain(message);
    expect(fake.requests.length).toBe(before);
  });
});
