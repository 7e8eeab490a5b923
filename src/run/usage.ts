import type { TokenUsage } from '../openrouter/client.js';

/** Adds up usages field by field; a sum that would not be a finite number is left out. */
export function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total: TokenUsage = {};
  for (const usage of usages) {
    for (const [key, value] of Object.entries(usage ?? {}) as Array<[keyof TokenUsage, number]>) {
      const sum = (total[key] ?? 0) + value;
      if (Number.isFinite(sum)) total[key] = sum;
    }
  }
  // Cents of a cent add up with float noise; OpenRouter reports cost to 1e-8 at most.
  if (total.cost !== undefined) total.cost = Math.round(total.cost * 1e8) / 1e8;
  return total;
}
