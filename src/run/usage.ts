import { addUsage, type TokenUsage } from '../openrouter/usage.js';

/** The usages of a run added up; cost rounded, since cents of a cent add up with float noise. */
export function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total = usages.reduce<TokenUsage>((sum, usage) => addUsage(sum, usage), {});
  // OpenRouter reports cost to 1e-8 at most.
  if (total.cost !== undefined) total.cost = Math.round(total.cost * 1e8) / 1e8;
  return total;
}
