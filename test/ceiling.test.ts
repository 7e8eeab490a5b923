import { describe, expect, it } from 'vitest';
import { estimateUsd, refusalText } from '../src/present/refusal.js';
import { costRefusalRecord, fitCeiling, type CostRefusal } from '../src/run/ceiling.js';
import { worstCase, type CostPlan } from '../src/run/cost.js';
import { ROUND_PRICES, plan } from './support/cost-plans.js';

/*
 * plan(): a/cheap and b/dear, synthesized by s/synth, 1,000 input tokens. Its worst case as a
 * function of max_tokens m is 0.016 + 0.000046 m dollars: $0.062 at m = 1,000.
 */

function refusal(costPlan: CostPlan, ceilingUsd: number): CostRefusal {
  const check = fitCeiling(costPlan, ROUND_PRICES, ceilingUsd);
  if (check.ok) throw new Error(`fitted under $${ceilingUsd}: $${check.value.totalUsd}`);
  return check.error;
}

describe('fitCeiling', () => {
  it('lets a call whose worst case is at or under the ceiling through, with its estimate', () => {
    const check = fitCeiling(plan(), ROUND_PRICES, 0.1);
    expect(check).toEqual({ ok: true, value: worstCase(plan(), ROUND_PRICES) });
  });

  it('refuses a call with a model that has no price, with the reason, however cheap the rest', () => {
    const refused = refusal(plan({ models: ['a/cheap', 'acme/new'] }), 1000);
    expect(refused).toMatchObject({
      kind: 'unpriced',
      ceilingUsd: 1000,
      unpriced: [{ model: 'acme/new', reason: "acme/new is not in OpenRouter's model list" }],
    });
  });

  it('refuses a call above the ceiling, and says which model to leave out to fit', () => {
    const refused = refusal(plan(), 0.03);
    expect(refused.kind).toBe('over_ceiling');
    expect(refused.estimate.totalUsd).toBeCloseTo(0.062, 9);
    expect(refused.kind === 'over_ceiling' && refused.fewerModels).toEqual({
      drop: [{ index: 1, model: 'b/dear', savesUsd: expect.closeTo(0.042, 9) }],
      keep: ['a/cheap'],
      totalUsd: expect.closeTo(0.02, 9),
    });
  });

  it('gives the highest max_tokens that fits', () => {
    const refused = refusal(plan(), 0.03);
    expect(refused.kind === 'over_ceiling' && refused.lowerMaxTokens).toEqual({
      maxTokens: 304,
      totalUsd: expect.closeTo(0.016 + 0.000046 * 304, 9),
    });
    expect(worstCase(plan({ maxTokens: 305 }), ROUND_PRICES).totalUsd).toBeGreaterThan(0.03);
  });

  it('rounds a suggested max_tokens above a thousand down to a hundred', () => {
    const refused = refusal(plan({ maxTokens: 100_000 }), 0.016 + 0.000046 * 5555);
    expect(refused.kind === 'over_ceiling' && refused.lowerMaxTokens?.maxTokens).toBe(5500);
  });

  it('leaves out, in a council, the model whose absence saves most, its rankings included', () => {
    const council = plan({ strategy: 'council', models: ['a/cheap', 'b/dear', 'c/mid', 'a/cheap'] });
    const refused = refusal(council, 0.05);
    if (refused.kind !== 'over_ceiling' || !refused.fewerModels) throw new Error('expected models to leave out');
    const { drop, totalUsd } = refused.fewerModels;
    expect(drop[0]).toMatchObject({ index: 1, model: 'b/dear' });
    const candidateStepOfB = refused.estimate.steps.find((step) => step.kind === 'candidate' && step.index === 1)!;
    expect(drop[0]!.savesUsd).toBeGreaterThan(candidateStepOfB.usd!);
    expect(totalUsd).toBeLessThanOrEqual(0.05);
    const savings = drop.map((entry) => entry.savesUsd);
    expect(savings).toEqual([...savings].sort((a, b) => b - a));
  });

  it('leaves out the later of two equal candidates', () => {
    const refused = refusal(plan({ models: ['c/mid', 'c/mid'] }), 0.025);
    expect(refused.kind === 'over_ceiling' && refused.fewerModels?.drop.map((entry) => entry.index)).toEqual([1]);
  });

  it('checks a resumed run at what is left to pay, and suggests what fits as a new run, since a changed call reuses nothing', () => {
    expect(fitCeiling(plan({ saved: [1] }), ROUND_PRICES, 0.03).ok).toBe(true);
    const refused = refusal(plan({ saved: [0] }), 0.03);
    expect(refused.kind === 'over_ceiling' && refused.fewerModels?.totalUsd).toBeCloseTo(0.02, 9);
  });

  it('suggests nothing when even one model with max_tokens 1 is above the ceiling', () => {
    const refused = refusal(plan(), 0.01);
    expect(refused).toMatchObject({ kind: 'over_ceiling' });
    expect(refused).not.toHaveProperty('fewerModels');
    expect(refused).not.toHaveProperty('lowerMaxTokens');
  });
});

describe('estimateUsd', () => {
  it.each([
    [0, '$0'],
    [0.062, '$0.062'],
    [0.5004, '$0.501'],
    [0.04213, '$0.0422'],
    [12.41, '$12.5'],
    [100, '$100'],
    [123.4, '$124'],
    [0.0000001, '$0.0000001'],
  ])('shows %d as %s, rounding up', (usd, shown) => {
    expect(estimateUsd(usd)).toBe(shown);
  });
});

/** The refusal as a face says it, at prices fetched just now. */
const costRefusalText = (refused: CostRefusal) =>
  refusalText(costRefusalRecord(refused, { table: ROUND_PRICES, fetchedAt: '2026-11-25T12:00:00.000Z', ageMs: 0 }));

describe('refusalText of a cost refusal', () => {
  it('names the worst case, the ceiling, the estimate per model and both ways to fit', () => {
    const text = costRefusalText(refusal(plan(), 0.03));
    expect(text.split('\n')).toEqual([
      'Refused before any request: the worst case is $0.062, above the cost ceiling of $0.03.',
      'Worst case per model: b/dear $0.04 (1 step); s/synth $0.019 (1 step); a/cheap $0.003 (1 step).',
      'Would fit: without b/dear (worst case $0.02); or max_tokens 304 (worst case $0.03).',
    ]);
  });

  it('says when nothing smaller fits', () => {
    expect(costRefusalText(refusal(plan(), 0.01))).toMatch(
      /Neither fewer models nor a lower max_tokens would fit: raise the ceiling or shorten the prompt\.$/,
    );
  });

  it('names each model without a price and why', () => {
    const text = costRefusalText(refusal(plan({ models: ['acme/new'], synthesizers: ['openrouter/auto'] }), 5));
    expect(text).toMatch(/^Refused before any request: the cost ceiling is \$5, and 2 models have no price/);
    expect(text).toContain("acme/new is not in OpenRouter's model list");
    expect(text).toContain('openrouter/auto no fixed price');
  });
});
