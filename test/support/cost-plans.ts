import { PriceTable, priceListSchema } from '../../src/openrouter/prices.js';
import type { CostPlan } from '../../src/run/cost.js';
import { modelRow } from './catalog-server.js';
import { pricing } from './price-rows.js';

/** Round prices, so every expected dollar figure can be worked out by hand. */
export const ROUND_PRICES = new PriceTable(
  priceListSchema.parse({
    data: [
      modelRow('a/cheap', { pricing: pricing('0.000001', '0.000002') }),
      modelRow('b/dear', { pricing: pricing('0.00001', '0.00003') }),
      modelRow('c/mid', { pricing: pricing('0.000002', '0.000004') }),
      modelRow('r/reasoner', { pricing: pricing('0.000001', '0.000002', { internal_reasoning: '0.000005' }) }),
      modelRow('p/search', { pricing: pricing('0.000001', '0.000001', { request: '0.01' }) }),
      modelRow('s/synth', { pricing: pricing('0.000002', '0.00001') }),
      modelRow('s/pricier', { pricing: pricing('0.000004', '0.00002') }),
      modelRow('openrouter/auto', { pricing: { prompt: '-1', completion: '-1' } }),
    ],
  }).data,
);

/**
 * A plan whose input is 1,000 tokens (3,000 ASCII characters) and max_tokens 1,000, without the
 * account of agreement, so every figure is worked out from these numbers alone (cost.test.ts
 * prices the account's instructions on their own).
 */
export function plan(overrides: Partial<CostPlan> = {}): CostPlan {
  return {
    strategy: 'synthesize',
    models: ['a/cheap', 'b/dear'],
    synthesizers: ['s/synth'],
    input: 'x'.repeat(3000),
    maxTokens: 1000,
    stepMaxChars: 600_000,
    agreement: false,
    ...overrides,
  };
}
