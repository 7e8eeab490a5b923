import type { Prices } from '../openrouter/price-catalog.js';
import type { CostRefusal } from './ceiling.js';
import type { WorstCase } from './cost.js';
import type { WorstCaseRecord } from './record.js';
import type { StartRefusal } from './start-refusal.js';

/** A worst case as run.json and the results keep it, with the age of the prices it rests on. */
export function worstCaseRecord(worst: WorstCase, prices: Prices): WorstCaseRecord {
  return {
    total_usd: worst.totalUsd,
    per_model: worst.perModel.map(({ model, usd, steps }) => ({ model, usd, steps })),
    unpriced: worst.unpriced,
    prices_fetched_at: prices.fetchedAt,
    prices_age_ms: Math.round(prices.ageMs),
    ...(prices.refreshFailed === undefined ? {} : { refresh_failed: prices.refreshFailed }),
  };
}

/** A cost refusal as the faces receive it. */
export function costRefusalRecord(refusal: CostRefusal, prices: Prices): StartRefusal {
  const worst_case = worstCaseRecord(refusal.estimate, prices);
  if (refusal.kind === 'unpriced') return { kind: 'unpriced', ceiling_usd: refusal.ceilingUsd, worst_case };
  const { fewerModels: fewer, lowerMaxTokens: lower } = refusal;
  return {
    kind: 'over_ceiling',
    ceiling_usd: refusal.ceilingUsd,
    worst_case,
    ...(fewer && {
      fewer_models: {
        drop: fewer.drop.map(({ index, model, savesUsd }) => ({ index, model, saves_usd: savesUsd })),
        keep: fewer.keep,
        total_usd: fewer.totalUsd,
      },
    }),
    ...(lower && { lower_max_tokens: { max_tokens: lower.maxTokens, total_usd: lower.totalUsd } }),
  };
}
