import { addUsage, type TokenUsage } from '../openrouter/usage.js';
import type { RunRecord } from './record.js';

/** The usages of a run added up; cost rounded, since cents of a cent add up with float noise. */
export function sumUsage(usages: Array<TokenUsage | undefined>): TokenUsage {
  const total = usages.reduce<TokenUsage>((sum, usage) => addUsage(sum, usage), {});
  // OpenRouter reports cost to 1e-8 at most.
  if (total.cost !== undefined) total.cost = Math.round(total.cost * 1e8) / 1e8;
  return total;
}

type Step = { status: string; usage?: TokenUsage; reused?: true };

/** `reused: false` leaves out what was paid before the run was stopped and taken over. */
export function stepUsages(
  record: Readonly<Pick<RunRecord, 'candidates' | 'council' | 'synthesis'>>,
  { reused }: { reused: boolean },
): Array<TokenUsage | undefined> {
  const counted = (step: Step) => (step.status === 'answered' && (reused || !step.reused) ? step.usage : undefined);
  return [...record.candidates.map(counted), ...(record.council?.rankings ?? []).map(counted), ...record.synthesis.attempts.map(counted)];
}
