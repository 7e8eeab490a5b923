import { thousands } from '../text/locale-free.js';
import type { RunState } from '../run/record.js';
import { estimateUsd } from './refusal.js';
import { capitalised, clip, describeError } from './words.js';

/** A candidate as the results name it: its 1-based index (a model may repeat) and its model. */
const candidateName = (record: RunState, index: number) => `candidate ${index} (${record.candidates[index - 1]?.model ?? '?'})`;

/** How the answers became one, for the first line: "synthesized by s/synth", "judged by s/synth, who chose candidate 2 (b/two): …". */
export function finalPhrase(record: RunState): string {
  const { model, verdict } = record.synthesis;
  if (verdict?.choice_index !== undefined)
    return `judged by ${model}, who chose ${candidateName(record, verdict.choice_index)}${verdict.reason ? `: ${clip(verdict.reason, 120)}` : ''}`;
  if (verdict) return `judged by ${model}, who named no candidate (its whole reply is the answer)`;
  if (record.council?.aggregate) return `ranked by each other, then synthesized by ${model}`;
  return `synthesized by ${model}`;
}

/** The run's settings beyond the defaults, for the footer: "Strategy: judge; reasoning effort: high; follows up run …". */
export function settingsLine(record: RunState): string | undefined {
  const parts = [
    record.settings.strategy && record.settings.strategy !== 'synthesize' ? `strategy: ${record.settings.strategy}` : undefined,
    record.settings.reasoning_effort ? `reasoning effort: ${record.settings.reasoning_effort}` : undefined,
    record.follow_up_of ? `follows up run ${record.follow_up_of}` : undefined,
  ].filter(Boolean);
  return parts.length === 0 ? undefined : `${capitalised(parts.join('; '))}.`;
}

/** The footer's account of the judge's verdict, or of the council's rankings. */
export function strategyLines(record: RunState): string[] {
  const { verdict } = record.synthesis;
  if (verdict) {
    const chose =
      verdict.choice_index === undefined
        ? 'named no candidate, so its whole reply is the answer'
        : `chose ${candidateName(record, verdict.choice_index)}`;
    return [`Judge: ${record.synthesis.model} ${chose}.${verdict.reason ? ` Reason: ${verdict.reason.replace(/\s*\n\s*/g, ' ')}` : ''}`];
  }
  const council = record.council;
  if (!council) return [];
  const lines = council.rankings.map((ranker) => {
    const who = `- ${candidateName(record, ranker.index)}`;
    if (ranker.status === 'failed') return `${who} could not rank: ${describeError(ranker.error)}`;
    return ranker.order.length === 0
      ? `${who}: no ranking could be read`
      : `${who}: ${ranker.order.map((index) => candidateName(record, index)).join(' > ')}`;
  });
  if (lines.length > 0) lines.unshift("Council: each model ranked the others' answers, anonymised, best first:");
  if (council.aggregate)
    lines.push(
      `Combined: ${council.aggregate.map((entry) => `${candidateName(record, entry.index)} ${entry.score.toFixed(2)}`).join(', ')}.`,
    );
  if (council.note) lines.push(`Council: ${council.note}.`);
  return lines;
}

/** Reasoning tokens per model and step, where any were reported: they are billed as output. */
export function reasoningLine(record: RunState): string | undefined {
  const steps = [...record.candidates, ...(record.council?.rankings ?? []), ...record.synthesis.attempts];
  const reported = steps.flatMap((step) =>
    step.status === 'answered' && step.usage?.reasoning_tokens ? [`${step.model} ${thousands(step.usage.reasoning_tokens)}`] : [],
  );
  return reported.length > 0 ? `Reasoning tokens (billed as output): ${reported.join(', ')}.` : undefined;
}

/** The worst case the run was admitted with, and its ceiling: "; worst case $0.084, under the ceiling of $0.5". */
export function worstCasePhrase(record: RunState): string {
  const worst = record.cost?.worst_case;
  const ceiling = record.cost?.ceiling_usd;
  if (!worst) return ceiling === undefined ? '' : `; ceiling $${ceiling}`;
  const unpriced =
    worst.unpriced.length > 0 ? ` for the priced models (${worst.unpriced.map((entry) => entry.model).join(', ')} unpriced)` : '';
  return `; worst case ${estimateUsd(worst.total_usd)}${unpriced}${ceiling === undefined ? '' : `, under the ceiling of $${ceiling}`}`;
}
