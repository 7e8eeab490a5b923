import { describe, expect, it } from 'vitest';
import { AGREEMENT_PROMPT_TOKENS, agreementResponseFormat } from '../src/prompts/agreement/prompt.js';
import { CHARS_PER_TOKEN, STEP_FRAME_TOKENS, estimateTokens, worstCase } from '../src/run/cost.js';
import { anonymise } from '../src/prompts/anonymise.js';
import { buildCouncilSynthesisPrompt, buildRankingPrompt } from '../src/prompts/council.js';
import { buildJudgePrompt } from '../src/prompts/judge.js';
import { aggregateRankings } from '../src/prompts/ranking.js';
import { buildSynthesisPrompt } from '../src/prompts/synthesis.js';
import { ROUND_PRICES, plan } from './support/cost-plans.js';

/** 1,000 input tokens plus the frame plus `answers` answers of 1,000 tokens. */
const reading = (answers: number) => 1000 + STEP_FRAME_TOKENS + answers * 1000;

describe('estimateTokens', () => {
  it(`counts ${CHARS_PER_TOKEN} ASCII characters as a token, rounding up`, () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('abcd')).toBe(2);
    expect(estimateTokens('x'.repeat(3000))).toBe(1000);
  });

  it('counts every other character as a token of its own (CJK, accents, emoji)', () => {
    expect(estimateTokens('日本語のテキスト')).toBe(8);
    expect(estimateTokens('café')).toBe(2);
    expect(estimateTokens('🙂🙂')).toBe(2);
  });

  it('overestimates real text: an English paragraph of 4-5 characters a token in common tokenizers', () => {
    const paragraph = 'The quick brown fox jumps over the lazy dog, and then it writes a careful code review of a pull request. '.repeat(
      20,
    );
    expect(estimateTokens(paragraph)).toBeGreaterThan(paragraph.length / 4);
  });
});

describe('worstCase: synthesize', () => {
  const estimate = worstCase(plan(), ROUND_PRICES);

  it('prices each candidate at its input and all of max_tokens', () => {
    expect(estimate.steps.slice(0, 2)).toEqual([
      { kind: 'candidate', model: 'a/cheap', index: 0, promptTokens: 1000, outputTokens: 1000, usd: expect.closeTo(0.003, 9) },
      { kind: 'candidate', model: 'b/dear', index: 1, promptTokens: 1000, outputTokens: 1000, usd: expect.closeTo(0.04, 9) },
    ]);
  });

  it('prices one synthesis that reads the input and every candidate’s worst-case answer', () => {
    const synthesis = estimate.steps[2]!;
    expect(synthesis).toMatchObject({ kind: 'synthesis', model: 's/synth', promptTokens: reading(2), outputTokens: 1000 });
    expect(synthesis.usd).toBeCloseTo(reading(2) * 0.000002 + 1000 * 0.00001, 9);
    expect(estimate.steps).toHaveLength(3);
  });

  it('adds the steps up, and gives the estimate per model, dearest first', () => {
    expect(estimate.totalUsd).toBeCloseTo(0.003 + 0.04 + estimate.steps[2]!.usd!, 9);
    expect(estimate.perModel.map((entry) => entry.model)).toEqual(['b/dear', 's/synth', 'a/cheap']);
    expect(estimate.unpriced).toEqual([]);
  });
});

describe('worstCase: the account of agreement', () => {
  it('counts its instructions in the prompt of a synthesis and a council’s synthesis; its output is within max_tokens, already priced', () => {
    const off = worstCase(plan(), ROUND_PRICES);
    const on = worstCase(plan({ agreement: true }), ROUND_PRICES);
    expect(on.steps[2]).toMatchObject({ kind: 'synthesis', promptTokens: reading(2) + AGREEMENT_PROMPT_TOKENS, outputTokens: 1000 });
    expect(on.totalUsd).toBeCloseTo(off.totalUsd + AGREEMENT_PROMPT_TOKENS * 0.000002, 12);
    const council = worstCase(plan({ strategy: 'council', models: ['a/cheap', 'b/dear', 'c/mid'], agreement: true }), ROUND_PRICES);
    expect(council.steps.at(-1)!.promptTokens).toBe(reading(3) + AGREEMENT_PROMPT_TOKENS);
  });

  it('is on unless the plan turns it off, and a judge, which gives no account, is priced without it', () => {
    const { agreement: _off, ...unset } = plan();
    expect(worstCase(unset, ROUND_PRICES).steps.at(-1)!.promptTokens).toBe(reading(2) + AGREEMENT_PROMPT_TOKENS);
    expect(worstCase({ ...unset, strategy: 'judge' }, ROUND_PRICES).steps.at(-1)!.promptTokens).toBe(reading(2));
  });

  it('still caps the prompt at the synthesis bound', () => {
    const estimate = worstCase(plan({ maxTokens: 100_000, stepMaxChars: 50_000, agreement: true }), ROUND_PRICES);
    expect(estimate.steps.at(-1)!.promptTokens).toBe(50_000);
  });

  it(`covers the instructions the prompts add for it, and the schema sent with them (${AGREEMENT_PROMPT_TOKENS} tokens), for 20 candidates`, () => {
    const empty = Array.from({ length: 20 }, (_, index) => ({ index, model: `vendor/model-${index}`, content: '' }));
    const ranking = aggregateRankings([], anonymise('run', empty));
    for (const format of ['section', 'json'] as const) {
      const added = [
        [buildSynthesisPrompt('', empty, 1_000_000, format), buildSynthesisPrompt('', empty, 1_000_000)],
        [
          buildCouncilSynthesisPrompt('', empty, ranking, 'run', 1_000_000, format),
          buildCouncilSynthesisPrompt('', empty, ranking, 'run', 1_000_000),
        ],
      ].map(([on, off]) => {
        const labels = on!.agreement!.map(({ label }) => label);
        const schema = format === 'json' ? estimateTokens(JSON.stringify(agreementResponseFormat(labels))) : 0;
        return estimateTokens(on!.text.toString()) - estimateTokens(off!.text.toString()) + schema;
      });
      for (const tokens of added) {
        expect(tokens, format).toBeGreaterThan(0);
        expect(tokens, format).toBeLessThanOrEqual(AGREEMENT_PROMPT_TOKENS);
      }
    }
  });
});

describe('worstCase: judge and council', () => {
  it('prices a judge like a synthesis', () => {
    const judge = worstCase(plan({ strategy: 'judge' }), ROUND_PRICES);
    const synthesis = worstCase(plan(), ROUND_PRICES);
    expect(judge.steps.at(-1)).toMatchObject({ kind: 'judge', model: 's/synth', promptTokens: reading(2) });
    expect(judge.totalUsd).toBeCloseTo(synthesis.totalUsd, 12);
  });

  it('prices a council as the candidates, each candidate ranking the others’ answers, and one synthesis', () => {
    const council = worstCase(plan({ strategy: 'council', models: ['a/cheap', 'b/dear', 'c/mid'] }), ROUND_PRICES);
    expect(council.steps.map((step) => [step.kind, step.model])).toEqual([
      ['candidate', 'a/cheap'],
      ['candidate', 'b/dear'],
      ['candidate', 'c/mid'],
      ['ranking', 'a/cheap'],
      ['ranking', 'b/dear'],
      ['ranking', 'c/mid'],
      ['synthesis', 's/synth'],
    ]);
    const rankingByB = council.steps[4]!;
    expect(rankingByB).toMatchObject({ index: 1, promptTokens: reading(2), outputTokens: 1000 });
    expect(rankingByB.usd).toBeCloseTo(reading(2) * 0.00001 + 1000 * 0.00003, 9);
    expect(council.steps[6]!.promptTokens).toBe(reading(3));
    expect(council.perModel.find((entry) => entry.model === 'b/dear')).toMatchObject({ steps: 2 });
  });

  it('prices a council of two as a synthesis: with one other answer each, there is nothing to rank', () => {
    const council = worstCase(plan({ strategy: 'council' }), ROUND_PRICES);
    expect(council.steps.map((step) => step.kind)).toEqual(['candidate', 'candidate', 'synthesis']);
  });
});

describe('worstCase: prices', () => {
  it('prices output at the reasoning price when it is above the completion price', () => {
    const [candidate] = worstCase(plan({ models: ['r/reasoner'] }), ROUND_PRICES).steps;
    expect(candidate!.usd).toBeCloseTo(1000 * 0.000001 + 1000 * 0.000005, 9);
  });

  it('counts a per-request price once for every step', () => {
    const estimate = worstCase(plan({ models: ['p/search'], synthesizers: ['p/search'] }), ROUND_PRICES);
    expect(estimate.steps[0]!.usd).toBeCloseTo(1000 * 0.000001 + 1000 * 0.000001 + 0.01, 9);
    expect(estimate.steps[1]!.usd).toBeCloseTo(reading(1) * 0.000001 + 1000 * 0.000001 + 0.01, 9);
  });

  it('bills each repeat of a model as its own candidate (Self-MoA)', () => {
    const estimate = worstCase(plan({ models: ['b/dear', 'b/dear', 'b/dear'] }), ROUND_PRICES);
    expect(estimate.steps.filter((step) => step.kind === 'candidate').map((step) => step.index)).toEqual([0, 1, 2]);
    expect(estimate.perModel[0]).toMatchObject({ model: 'b/dear', steps: 3, usd: expect.closeTo(0.12, 9) });
  });

  it('prices the synthesis at the dearest synthesizer in the fallback list', () => {
    const estimate = worstCase(plan({ synthesizers: ['s/synth', 's/pricier'] }), ROUND_PRICES);
    expect(estimate.steps.at(-1)!.model).toBe('s/pricier');
  });

  it('caps a step’s prompt at the synthesis bound, one token per character at most', () => {
    const estimate = worstCase(plan({ maxTokens: 100_000, stepMaxChars: 50_000 }), ROUND_PRICES);
    expect(estimate.steps.at(-1)!.promptTokens).toBe(50_000);
  });

  it('lists each model without a price once, with the reason, and totals the priced steps only', () => {
    const estimate = worstCase(
      plan({ models: ['a/cheap', 'acme/new', 'acme/new'], synthesizers: ['openrouter/auto', 's/synth'] }),
      ROUND_PRICES,
    );
    expect(estimate.unpriced).toEqual([
      { model: 'acme/new', reason: "acme/new is not in OpenRouter's model list" },
      { model: 'openrouter/auto', reason: expect.stringContaining('no fixed price') },
    ]);
    expect(estimate.steps[1]!.usd).toBeUndefined();
    expect(estimate.steps.at(-1)!.model).toBe('s/synth');
    expect(estimate.totalUsd).toBeCloseTo(0.003 + estimate.steps.at(-1)!.usd!, 9);
  });
});

describe('worstCase: a resumed run', () => {
  it('leaves out the candidates whose answers are saved, while the final step still reads every answer', () => {
    const whole = worstCase(plan(), ROUND_PRICES);
    const resumed = worstCase(plan({ saved: [1] }), ROUND_PRICES);
    expect(resumed.steps.map((step) => [step.kind, step.model])).toEqual([
      ['candidate', 'a/cheap'],
      ['synthesis', 's/synth'],
    ]);
    expect(resumed.steps.at(-1)!.promptTokens).toBe(whole.steps.at(-1)!.promptTokens);
    expect(resumed.totalUsd).toBeCloseTo(whole.totalUsd - whole.steps[1]!.usd!, 12);
  });
});

describe('STEP_FRAME_TOKENS', () => {
  it('covers what every step’s prompt adds around the input and the answers, for 20 candidates', () => {
    const empty = Array.from({ length: 20 }, (_, index) => ({ index, model: `vendor/model-${index}`, content: '' }));
    const ranking = aggregateRankings([], anonymise('run', empty));
    const frames = [
      buildSynthesisPrompt('', empty, 1_000_000).text.toString(),
      buildJudgePrompt('', empty, 'run', 1_000_000).text.toString(),
      buildRankingPrompt('', empty, 0, 'run', 1_000_000).text.toString(),
      buildCouncilSynthesisPrompt('', empty, ranking, 'run', 1_000_000).text.toString(),
    ];
    for (const frame of frames) expect(estimateTokens(frame)).toBeLessThanOrEqual(STEP_FRAME_TOKENS);
  });
});
