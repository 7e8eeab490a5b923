import { thousands } from '../text/locale-free.js';
import type { TokenUsage } from '../openrouter/client.js';
import type { RunState } from '../run/record.js';
import type { Joined } from '../run/service.js';
import { stepUsages, sumUsage } from '../run/usage.js';
import { worstCasePhrase } from './strategy.js';
import { count, seconds } from './words.js';

/**
 * What this call added to the bill, in US dollars: nothing when it joined a run already paid
 * for, and never the answers a resumed run reused from before it was stopped. Undefined when
 * the upstream reported no cost.
 */
export function newCost(state: RunState, joined: Joined | undefined): number | undefined {
  if (joined === 'attached') return 0;
  return sumUsage(stepUsages(state, { reused: false })).cost;
}

/** The cost line of a result: what the run cost, and whether this call paid it. */
export function costLine(state: RunState, joined: Joined | undefined): string {
  const spent = usageText(state.totals, state.elapsed_ms);
  if (joined === 'attached') return `Cost: no new cost: this call reused run ${state.run_id}, which cost ${spent} when it ran.`;
  const reused = state.candidates.filter((candidate) => candidate.status === 'answered' && candidate.reused);
  if (reused.length === 0) return `Cost: ${spent}${worstCasePhrase(state)}.`;
  const before = sumUsage(reused.map((candidate) => (candidate.status === 'answered' ? candidate.usage : undefined))).cost;
  const paid = before === undefined ? '' : ` ($${before.toFixed(4)} of it)`;
  return `Cost: ${spent}${worstCasePhrase(state)}; ${count(reused.length, 'answer')}${paid} reused from before the run was stopped, not paid again.`;
}

/** "$0.0123, 12,345 tokens (…), 48.2 s"; cost and tokens only where the API reported them. */
function usageText(totals: TokenUsage, elapsedMs: number | undefined): string {
  const parts = [totals.cost === undefined ? 'cost not reported' : `$${totals.cost.toFixed(4)}`];
  if (totals.total_tokens !== undefined) {
    const detail = [
      totals.prompt_tokens === undefined ? undefined : `${thousands(totals.prompt_tokens)} in`,
      totals.completion_tokens === undefined ? undefined : `${thousands(totals.completion_tokens)} out`,
      totals.reasoning_tokens ? `${thousands(totals.reasoning_tokens)} of them reasoning` : undefined,
    ].filter(Boolean);
    parts.push(`${thousands(totals.total_tokens)} tokens${detail.length ? ` (${detail.join(', ')})` : ''}`);
  }
  if (elapsedMs !== undefined) parts.push(seconds(elapsedMs));
  return parts.join(', ');
}
