import type { WorstCaseRecord } from '../run/record.js';
import type { StartRefusal } from '../run/start-refusal.js';
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
export function perModelText(estimate: WorstCaseRecord): string {
  return estimate.per_model.map((entry) => `${entry.model} ${estimateUsd(entry.usd)} (${count(entry.steps, 'step')})`).join('; ');
}

/** Why a call started no run, as the text of its error result (or `ask`'s message): what was refused, why, and what would do. */
export function refusalText(refusal: StartRefusal): string {
  switch (refusal.kind) {
    case 'follow_up':
      return `Cannot follow up: ${refusal.message}.`;
    case 'budget':
    case 'server':
      return `Refused before any request: ${refusal.message}.`;
    case 'prices_unavailable':
      return `Refused before any request: the cost ceiling is $${refusal.ceiling_usd}, and ${refusal.message}. ${refusal.advice}`;
    case 'unpriced':
      return unpricedText(refusal);
    case 'over_ceiling':
      return overCeilingText(refusal);
  }
}

function unpricedText(refusal: Extract<StartRefusal, { kind: 'unpriced' }>): string {
  const { unpriced } = refusal.worst_case;
  const reasons = unpriced.map((entry) => entry.reason).join('; ');
  return (
    `Refused before any request: the cost ceiling is $${refusal.ceiling_usd}, and ${count(unpriced.length, 'model')} ` +
    `${unpriced.length === 1 ? 'has' : 'have'} no price to promise a worst case with (${reasons}). ` +
    'Leave them out, or call without a ceiling.'
  );
}

function overCeilingText(refusal: Extract<StartRefusal, { kind: 'over_ceiling' }>): string {
  const lines = [
    `Refused before any request: the worst case is ${estimateUsd(refusal.worst_case.total_usd)}, above the cost ceiling of $${refusal.ceiling_usd}.`,
    `Worst case per model: ${perModelText(refusal.worst_case)}.`,
  ];
  const { fewer_models: fewer, lower_max_tokens: lower } = refusal;
  const fits = [
    fewer && `without ${fewer.drop.map((entry) => entry.model).join(', ')} (worst case ${estimateUsd(fewer.total_usd)})`,
    lower && `max_tokens ${lower.max_tokens} (worst case ${estimateUsd(lower.total_usd)})`,
  ].filter(Boolean);
  lines.push(
    fits.length > 0
      ? `Would fit: ${fits.join('; or ')}.`
      : 'Neither fewer models nor a lower max_tokens would fit: raise the ceiling or shorten the prompt.',
  );
  const stale = staleNote(refusal.worst_case);
  if (stale) lines.push(stale);
  return lines.join('\n');
}

/** Said when the prices are old because the latest refresh failed. */
export function staleNote(worst: WorstCaseRecord): string | undefined {
  if (worst.refresh_failed === undefined) return undefined;
  return `The prices are ${Math.round(worst.prices_age_ms / 60_000)} minutes old: the latest refresh failed (${worst.refresh_failed}).`;
}
