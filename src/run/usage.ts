import { addUsage, type TokenUsage } from '../openrouter/usage.js';
import type { RunRecord } from './record.js';

/** The usages of a run added up; cost rounded, since cents of a cent add up with float noise. */
export function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total = usages.reduce<TokenUsage>((sum, usage) => addUsage(sum, usage), {});
  // OpenRouter reports cost to 1e-8 at most.
  if (total.cost !== undefined) total.cost = Math.round(total.cost * 1e8) / 1e8;
  return total;
}

/** What a run has used: its candidates' answers and its synthesis attempts that answered. */
export function runTotals(record: Readonly<RunRecord>): TokenUsage {
  const candidates = record.candidates.map((candidate) => (candidate.status === 'answered' ? candidate.usage : undefined));
  const synthesis = record.synthesis.attempts.map((attempt) => (attempt.status === 'answered' ? attempt.usage : undefined));
  return sumUsage([...candidates, ...synthesis]);
}
