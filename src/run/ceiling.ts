import type { Prices } from '../openrouter/price-catalog.js';
import { err, ok, type Result } from '../result.js';
import { estimate, shapeOf, type CostPlan, type PlanShape, type PriceSource, type WorstCase } from './cost.js';
import type { WorstCaseRecord } from './record.js';
import type { StartRefusal } from './start-refusal.js';

export type CostRefusal =
  | { kind: 'unpriced'; ceilingUsd: number; estimate: WorstCase; unpriced: WorstCase['unpriced'] }
  | { kind: 'over_ceiling'; ceilingUsd: number; estimate: WorstCase; fewerModels?: FewerModels; lowerMaxTokens?: LowerMaxTokens };

interface FewerModels {
  drop: Array<{ index: number; model: string; savesUsd: number }>;
  keep: string[];
  totalUsd: number;
}

interface LowerMaxTokens {
  maxTokens: number;
  totalUsd: number;
}

export function fitCeiling(plan: CostPlan, prices: PriceSource, ceilingUsd: number): Result<WorstCase, CostRefusal> {
  const shape = shapeOf(plan);
  const worst = estimate(shape, prices);
  if (worst.unpriced.length > 0) return err({ kind: 'unpriced', ceilingUsd, estimate: worst, unpriced: worst.unpriced });
  if (worst.totalUsd <= ceilingUsd) return ok(worst);
  // Either change makes another request, which is a new run: nothing saved is reused then.
  const anew = { ...shape, saved: undefined };
  const fewer = fewerModels(anew, prices, ceilingUsd);
  const lower = lowerMaxTokens(anew, prices, ceilingUsd);
  return err({
    kind: 'over_ceiling',
    ceilingUsd,
    estimate: worst,
    ...(fewer && { fewerModels: fewer }),
    ...(lower && { lowerMaxTokens: lower }),
  });
}

/** Drops the candidate whose absence saves most until the rest fits; a tie drops the later one, since the user listed the first first. */
function fewerModels(shape: PlanShape, prices: PriceSource, ceilingUsd: number): FewerModels | undefined {
  let kept = shape.models.map((model, index) => ({ model, index }));
  let total = estimate(shape, prices).totalUsd;
  const drop: FewerModels['drop'] = [];
  while (total > ceilingUsd) {
    if (kept.length <= 1) return undefined;
    const options = kept.map((_, position) => {
      const rest = kept.filter((__, other) => other !== position);
      return { position, rest, total: estimate({ ...shape, models: rest.map((entry) => entry.model) }, prices).totalUsd };
    });
    const best = options.reduce((cheapest, option) => (option.total <= cheapest.total ? option : cheapest));
    drop.push({ ...kept[best.position]!, savesUsd: total - best.total });
    kept = best.rest;
    total = best.total;
  }
  return { drop, keep: kept.map((entry) => entry.model), totalUsd: total };
}

/** The cost grows with max_tokens, so a binary search finds the highest that fits. */
function lowerMaxTokens(shape: PlanShape, prices: PriceSource, ceilingUsd: number): LowerMaxTokens | undefined {
  const totalAt = (maxTokens: number) => estimate({ ...shape, maxTokens }, prices).totalUsd;
  if (totalAt(1) > ceilingUsd) return undefined;
  let low = 1;
  let high = shape.maxTokens - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (totalAt(middle) <= ceilingUsd) low = middle;
    else high = middle - 1;
  }
  const maxTokens = low >= 1000 ? Math.floor(low / 100) * 100 : low;
  return { maxTokens, totalUsd: totalAt(maxTokens) };
}

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

/** A cost refusal as its clients receive it. */
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
