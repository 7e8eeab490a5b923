import { isPlainObject } from '../text/plain-object.js';

/** Token counts and cost of one call, each only where the upstream reported it sensibly. */
export interface TokenUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  reasoning_tokens?: number;
  total_tokens?: number;
  /** In credits (US dollars), as OpenRouter reports it. */
  cost?: number;
}

/**
 * The largest figure we keep. Larger ones are nonsense from a broken proxy; capping here
 * keeps every sum of figures finite, so totals never become `Infinity`.
 */
const MAX_FIGURE = Number.MAX_SAFE_INTEGER;

const KEYS = ['prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'total_tokens', 'cost'] as const;

/**
 * The `usage` object of a completion as TokenUsage, from whatever shape it has: OpenRouter's
 * (with `cost`), OpenAI-compatible servers', or junk. Unknown, missing, negative, non-finite
 * and absurd fields are dropped; numbers sent as strings are read. Never throws: a strange
 * usage report must not cost a good answer. Undefined when nothing usable was reported.
 */
export function convertUsage(raw: unknown): TokenUsage | undefined {
  if (!isPlainObject(raw)) return undefined;
  const details = isPlainObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const found: Record<(typeof KEYS)[number], unknown> = {
    prompt_tokens: raw.prompt_tokens,
    completion_tokens: raw.completion_tokens,
    reasoning_tokens: details.reasoning_tokens,
    total_tokens: raw.total_tokens,
    cost: raw.cost,
  };
  const usage: TokenUsage = {};
  for (const key of KEYS) {
    const value = figure(found[key]);
    if (value !== undefined) usage[key] = value;
  }
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** The sum of two usages, field by field; a field either lacks is the other's. Always finite. */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage {
  const sum: TokenUsage = {};
  for (const key of KEYS) {
    const left = figure(a?.[key]);
    const right = figure(b?.[key]);
    if (left === undefined && right === undefined) continue;
    sum[key] = Math.min(MAX_FIGURE, (left ?? 0) + (right ?? 0));
  }
  return sum;
}

/** A count or amount we can trust: a finite number from 0 to MAX_FIGURE, or such a number as a string. */
function figure(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) return undefined;
  return number >= 0 && number <= MAX_FIGURE ? number : undefined;
}
