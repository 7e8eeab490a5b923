import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';
import { agreeingSynthesizer, promptOf } from './support/agreeing-synthesizer.js';
import { ask, byLetter, panelOn, runJson, showOrderRanker, standInAccount } from './support/agreement-panel.js';
import { startFakeOpenRouter, type Behaviour } from './support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach } from './support/harness.js';

/**
 * Where the models agree and where they differ (SPEC §10), through the SDK's Client: the account
 * the synthesizer writes after its answer reaches structuredContent.agreement, the text's lines
 * after the answer, run.json and get_run, by real model ids; never final.md or the answer.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const start = harnessesClosedAfterEach();

afterAll(() => fake.close());

const panel = (prefix: string, synthesizer: Behaviour, then?: Behaviour) => panelOn(fake, prefix, synthesizer, then);
const synthPrompt = (prefix: string) => promptOf(fake.requestsFor(`${prefix}/synth`).at(-1)!);

describe('the account of agreement', () => {
  it('comes with a synthesis: in structuredContent, the text after the answer, run.json and get_run, by model id; the answer and final.md without it', async () => {
    const { env, models } = panel('agree', agreeingSynthesizer('The merged answer.', { chunks: 17 }));
    const harness = await start(fake, env);
    const { result, text, data } = await ask(harness);
    expect(result.isError).toBeFalsy();
    expect(synthPrompt('agree')).toContain(`exactly ${AGREEMENT_MARKER}`);
    const agreement = standInAccount(models);
    expect(data!.agreement).toEqual(agreement);
    expect(data!.answer).toBe('The merged answer.');
    expect(data!.warnings).toEqual([]);
    expect(text).not.toContain(AGREEMENT_MARKER);
    expect(text).toContain(
      [
        'The merged answer.',
        '',
        'Agreed: the problem is real.',
        `Differed: the fix (${models[0]}: patch it; ${models[1]} and ${models[2]}: rewrite it) → resolved: patch it now, rewrite later.`,
        `Only one model: ${models[2]}: an edge case (kept).`,
        '',
        '---',
      ].join('\n'),
    );
    await harness.app.runs.idle();
    expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8')).toBe('The merged answer.');
    expect((await runJson(data!.run_folder!)).synthesis.agreement).toEqual(agreement);
    const later = await callTool(harness, 'get_run', { run_id: data!.run_id });
    expect(later.data!.agreement).toEqual(agreement);
    expect(later.text).toContain('Agreed: the problem is real.');
    const resource = await harness.client.readResource({ uri: `parallel-llm://runs/${data!.run_id}` });
    expect(resource.contents[0]).toMatchObject({ text: expect.stringContaining(`Only one model: ${models[2]}: an edge case (kept).`) });
  });

  it('names the models a council’s synthesizer saw only as letters by their real ids', async () => {
    const { env, models } = panel('agree-council', agreeingSynthesizer('MERGED'), showOrderRanker);
    const harness = await start(fake, env);
    const { data } = await ask(harness, { strategy: 'council' });
    expect(data!.council!.note).toBeNull();
    const prompt = synthPrompt('agree-council');
    for (const model of models) expect(prompt).not.toContain(model);
    // The letters in the order the synthesizer saw them, and whose answer each stands for.
    const shown = byLetter(prompt, models);
    expect(shown).toHaveLength(3);
    expect(data!.agreement).toEqual(standInAccount(shown));
    expect(data!.answer).toBe('MERGED');
  });

  it('is null with a warning, the whole answer kept, when the synthesizer ignores the section, writes bad JSON or is cut at max_tokens', async () => {
    const replies: Array<[string, Behaviour, RegExp]> = [
      ['ignored', { answer: 'Just the answer.' }, /gave no account of where the models agreed and differed$/],
      [
        'bad-json',
        { answer: `Just the answer.\n${AGREEMENT_MARKER}\n{"consensus": [oops]}` },
        /could not be read: its JSON does not parse/,
      ],
      [
        'cut',
        { answer: `Just the answer.\n\n${AGREEMENT_MARKER}\n{"consensus": ["half`, finishReason: 'length' },
        /could not be read: .*\(its reply was cut at max_tokens\)$/,
      ],
    ];
    for (const [name, reply, warning] of replies) {
      const { env } = panel(`agree-${name}`, reply);
      const harness = await start(fake, env);
      const { result, text, data } = await ask(harness);
      expect(result.isError, name).toBeFalsy();
      expect(data!.status, name).toBe('complete');
      expect(data!.answer, name).toBe('Just the answer.');
      expect(data!.agreement, name).toBeNull();
      expect(data!.warnings, name).toEqual([expect.stringMatching(warning)]);
      expect(text, name).not.toContain(AGREEMENT_MARKER);
      await harness.app.runs.idle();
      expect(await readFile(path.join(data!.run_folder!, 'final.md'), 'utf8'), name).toBe('Just the answer.');
      expect((await runJson(data!.run_folder!)).synthesis.agreement, name).toBeNull();
    }
  });

  it('is left out of the request and the result with agreement: false, and with PARALLEL_LLM_AGREEMENT=off', async () => {
    const { env } = panel('agree-off', agreeingSynthesizer('The merged answer.'));
    for (const [extraEnv, args] of [
      [{}, { agreement: false }],
      [{ PARALLEL_LLM_AGREEMENT: 'off' }, {}],
    ] as const) {
      const harness = await start(fake, { ...env, ...extraEnv });
      const { text, data } = await ask(harness, { ...args, fresh: true });
      expect(synthPrompt('agree-off')).not.toContain(AGREEMENT_MARKER);
      expect(synthPrompt('agree-off')).toMatch(/do not describe the candidates or this process\.$/);
      expect(data!.agreement).toBeNull();
      expect(data!.warnings).toEqual([]);
      expect(text).not.toMatch(/^Agreed:/m);
      await harness.app.runs.idle();
      const record = await runJson(data!.run_folder!);
      expect(record.settings.agreement).toBe(false);
      expect(record.synthesis.agreement).toBeUndefined();
    }
  });

  it('is a request of its own: the same call with and without it is not one run', async () => {
    const { env } = panel('agree-key', agreeingSynthesizer('The merged answer.'));
    const harness = await start(fake, env);
    const on = await ask(harness);
    const off = await ask(harness, { agreement: false });
    expect(off.data!.run_id).not.toBe(on.data!.run_id);
    expect(off.data!.joined).toBe('new');
    expect((await ask(harness, { agreement: true })).data).toMatchObject({ run_id: on.data!.run_id, joined: 'attached' });
  });

  it('is not asked of a judge', async () => {
    const { env } = panel('agree-judge', { answer: 'CHOICE: A\nREASON: fine.\nANSWER:\nIt.' });
    const harness = await start(fake, env);
    const { data } = await ask(harness, { strategy: 'judge' });
    expect(synthPrompt('agree-judge')).not.toContain(AGREEMENT_MARKER);
    expect(data!.agreement).toBeNull();
    expect(data!.warnings).toEqual([]);
  });
});
