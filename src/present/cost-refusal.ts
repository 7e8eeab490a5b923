import type { CostRefusal } from '../run/ceiling.js';
import type { WorstCase } from '../run/cost.js';
import { count } from './words.js';

/**
 * Dollars for an estimate, rounded up at three significant figures: a worst case shown below
 * the ceiling it was refused for would make no sense. "$0.0421", "$0.842", "$12.4".
 */
export function estimateUsd(usd: number): string {
  if (usd === 0) return '$0';
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(usd)));
  const shown = (Math.ceil(usd * 10 ** decimals - 1e-6) / 10 ** decimals).toFixed(decimals);
  return `$${shown.includes('.') ? shown.replace(/0+$/, '').replace(/\.$/, '') : shown}`;
}

/** "~openai/gpt-latest $0.302 (2 steps); x-ai/grok-4 $0.120 (1 step)" */
export function perModelText(estimate: WorstCase): string {
  return estimate.perModel.map((entry) => `${entry.model} ${estimateUsd(entry.usd)} (${count(entry.steps, 'step')})`).join('; ');
}

/** The refusal as the text a result (or `ask`) shows: what was refused, why, and what would fit. */
export function costRefusalText(refusal: CostRefusal): string {
  const ceiling = `$${refusal.ceilingUsd}`;
  if (refusal.kind === 'unpriced') {
    const reasons = refusal.unpriced.map((entry) => entry.reason).join('; ');
    return (
      `Refused before any request: the cost ceiling is ${ceiling}, and ${count(refusal.unpriced.length, 'model')} ` +
      `${refusal.unpriced.length === 1 ? 'has' : 'have'} no price to promise a worst case with (${reasons}). ` +
      'Leave them out, or call without a ceiling.'
    );
  }
  const lines = [
    `Refused before any request: the worst case is ${estimateUsd(refusal.estimate.totalUsd)}, above the cost ceiling of ${ceiling}.`,
    `Worst case per model: ${perModelText(refusal.estimate)}.`,
  ];
  const { fewerModels: fewer, lowerMaxTokens: lower } = refusal;
  const fits = [
    fewer && `without ${fewer.drop.map((entry) => entry.model).join(', ')} (worst case ${estimateUsd(fewer.totalUsd)})`,
    lower && `max_tokens ${lower.maxTokens} (worst case ${estimateUsd(lower.totalUsd)})`,
  ].filter(Boolean);
  lines.push(
    fits.length > 0 ? `Would fit: ${fits.join('; or ')}.` : 'Neither fewer models nor a lower max_tokens would fit: raise the ceiling or shorten the prompt.',
  );
  return lines.join('\n');
}
