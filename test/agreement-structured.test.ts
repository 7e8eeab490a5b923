import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agreementResponseFormat } from '../src/prompts/agreement/prompt.js';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';
import { agreeingSynthesizer, promptOf } from './support/agreeing-synthesizer.js';
import { ask, byLetter, panelOn, runJson, showOrderRanker, standInAccount } from './support/agreement-panel.js';
import { startFakeOpenRouter, type Behaviour, type FakeOpenRouter } from './support/fake-openrouter.js';
import { harnessesClosedAfterEach } from './support/harness.js';

/**
 * The account of agreement (SPEC §10) by structured output: a synthesizer whose GET /models row
 * lists `structured_outputs` is sent a JSON schema as `response_format` and answers with one
 * object, `answer` and the account, read as it streams; any other synthesizer is asked for the
 * section, as is every one when the list cannot be read.
 */
const STRUCTURED = ['max_tokens', 'temperature', 'response_format', 'structured_outputs'];
const takers = ['json', 'json-council', 'json-ignores', 'json-cut', 'json-bad', 'json-off', 'json-first'].map(
  (prefix) => `${prefix}/synth`,
);
const fake = await startFakeOpenRouter({
  keepAliveCommentMs: 50,
  parameters: { ...Object.fromEntries(takers.map((model) => [model, STRUCTURED])), 'json-no/synth': ['max_tokens', 'response_format'] },
});
const start = harnessesClosedAfterEach();

afterAll(() => fake.close());

const lastSynthesis = (on: FakeOpenRouter, model: string) => on.requestsFor(model).at(-1)!;
const ANSWER = 'The merged answer: "quoted", a\\b, 日本語 🙂.\n\n```ts\nconst x = 1;\n```';

describe('the account of agreement by structured output', () => {
  it('sends the schema to a synthesizer that takes it, and reads the answer and the account from its JSON, streamed in pieces', async () => {
    const { env, models } = panelOn(fake, 'json', agreeingSynthesizer(ANSWER, { chunks: 29 }));
    const harness = await start(fake, env);
    const { result, text, data } = await ask(harness);
    expect(result.isError).toBeFalsy();
    const request = lastSynthesis(fake, 'json/synth');
    expect(request.body.response_format).toEqual(agreementResponseFormat(['1', '2', '3']));
    expect(request.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'synthesis', strict: true } });
    expect(promptOf(request)).not.toContain(AGREEMENT_MARKER);
    expect(promptOf(request)).toContain('Reply with one JSON object');
    expect(data!.answer).toBe(ANSWER);
    expect(data!.agreement).toEqual(standInAccount(models));
    expect(data!.warnings).toEqual([]);
    expect(text).toContain(`${ANSWER}\n\nAgreed: the problem is real.`);
    await harness.app.runs.idle();
    expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8')).toBe(ANSWER);
    expect((await runJson(data!.run_folder!)).synthesis.agreement).toEqual(standInAccount(models));
  });

  it('names the models a council’s synthesizer saw only as letters by their real ids', async () => {
    const { env, models } = panelOn(fake, 'json-council', agreeingSynthesizer('MERGED'), showOrderRanker);
    const harness = await start(fake, env);
    const { data } = await ask(harness, { strategy: 'council' });
    const request = lastSynthesis(fake, 'json-council/synth');
    const shown = byLetter(promptOf(request), models);
    expect(shown).toHaveLength(3);
    for (const model of models) expect(JSON.stringify(request.body)).not.toContain(model);
    expect(request.body.response_format).toEqual(agreementResponseFormat(['A', 'B', 'C']));
    expect(data!.answer).toBe('MERGED');
    expect(data!.agreement).toEqual(standInAccount(shown));
  });

  it('asks for the section, with no response_format, of a synthesizer whose row does not list structured output or that is not listed', async () => {
    for (const prefix of ['json-no', 'json-unlisted']) {
      const { env, models } = panelOn(fake, prefix, agreeingSynthesizer('The merged answer.'));
      const harness = await start(fake, env);
      const { data } = await ask(harness);
      const request = lastSynthesis(fake, `${prefix}/synth`);
      expect(request.body, prefix).not.toHaveProperty('response_format');
      expect(promptOf(request), prefix).toContain(`exactly ${AGREEMENT_MARKER}`);
      expect(data!.agreement, prefix).toEqual(standInAccount(models));
    }
  });

  it('asks for the section when GET /models cannot be read', async () => {
    const unlisted = await startFakeOpenRouter({ keepAliveCommentMs: 50, prices: 'missing', parameters: { 'json/synth': STRUCTURED } });
    try {
      const { env, models } = panelOn(unlisted, 'json', agreeingSynthesizer('The merged answer.'));
      const harness = await start(unlisted, env);
      const { data } = await ask(harness);
      expect(lastSynthesis(unlisted, 'json/synth').body).not.toHaveProperty('response_format');
      expect(data!.agreement).toEqual(standInAccount(models));
    } finally {
      await unlisted.close();
    }
  });

  it('asks each synthesizer in the fallback list in its own way', async () => {
    fake.on('json-first/synth', { status: 500 });
    const { env, models } = panelOn(fake, 'json-no', agreeingSynthesizer('From the second.'));
    const harness = await start(fake, { ...env, PARALLEL_LLM_SYNTHESIZER_MODEL: 'json-first/synth,json-no/synth' });
    const { data } = await ask(harness);
    expect(lastSynthesis(fake, 'json-first/synth').body).toHaveProperty('response_format');
    expect(lastSynthesis(fake, 'json-no/synth').body).not.toHaveProperty('response_format');
    expect(data!.answer).toBe('From the second.');
    expect(data!.agreement).toEqual(standInAccount(models));
  });

  it('keeps the whole answer, with null and a warning, when the reply ignores the schema, is cut at max_tokens or is malformed', async () => {
    const replies: Array<[string, Behaviour, string, RegExp]> = [
      [
        'json-ignores',
        { answer: 'Just the answer.' },
        'Just the answer.',
        /: it answered in plain text, not in the JSON object asked for$/,
      ],
      [
        'json-cut',
        { answer: '{"answer": "The answer as far as it \\u00e9', finishReason: 'length', chunks: 7 },
        'The answer as far as it é',
        /could not be read: its JSON ended inside the answer \(its reply was cut at max_tokens\)$/,
      ],
      [
        'json-bad',
        { answer: '{"answer": "Fine.", "agreement": {"consensus": [oops]}}' },
        'Fine.',
        /could not be read: its JSON does not parse/,
      ],
    ];
    for (const [prefix, reply, answer, warning] of replies) {
      const { env } = panelOn(fake, prefix, reply);
      const harness = await start(fake, env);
      const { result, data } = await ask(harness);
      expect(result.isError, prefix).toBeFalsy();
      expect(lastSynthesis(fake, `${prefix}/synth`).body, prefix).toHaveProperty('response_format');
      expect(data!.status, prefix).toBe('complete');
      expect(data!.answer, prefix).toBe(answer);
      expect(data!.agreement, prefix).toBeNull();
      expect(data!.warnings, prefix).toEqual([expect.stringMatching(warning)]);
      await harness.app.runs.idle();
      expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8'), prefix).toBe(answer);
    }
  });

  it('sends neither the schema nor the section with agreement: false, and with PARALLEL_LLM_AGREEMENT=off', async () => {
    const { env } = panelOn(fake, 'json-off', agreeingSynthesizer('The merged answer.'));
    for (const [extraEnv, args] of [
      [{}, { agreement: false }],
      [{ PARALLEL_LLM_AGREEMENT: 'off' }, {}],
    ] as const) {
      const harness = await start(fake, { ...env, ...extraEnv });
      const { data } = await ask(harness, { ...args, fresh: true });
      const request = lastSynthesis(fake, 'json-off/synth');
      expect(request.body).not.toHaveProperty('response_format');
      expect(promptOf(request)).toMatch(/do not describe the candidates or this process\.$/);
      expect(data!.answer).toBe('The merged answer.');
      expect(data!.agreement).toBeNull();
    }
  });
});
