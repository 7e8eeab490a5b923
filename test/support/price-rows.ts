import { modelRow } from './catalog-server.js';

/** A pricing object as GET /models writes it: strings of US dollars per token, every field present. */
export function pricing(
  prompt: string,
  completion: string,
  extra: { request?: string; internal_reasoning?: string } = {},
): Record<string, string> {
  return {
    prompt,
    completion,
    request: extra.request ?? '0',
    image: '0',
    web_search: '0',
    internal_reasoning: extra.internal_reasoning ?? '0',
  };
}

/**
 * A small /models list in OpenRouter's shape with each case the price table resolves: plain
 * rows, a per-request price, a separate reasoning price, a router with no fixed price (-1),
 * an alias without prices of its own, a listed and an unlisted variant, and junk; some rows list
 * their `supported_parameters` (structured output or not), most do not.
 */
export const PRICE_ROWS: Array<Record<string, unknown>> = [
  modelRow('anthropic/claude-sonnet-4.5', {
    pricing: pricing('0.000003', '0.000015'),
    supported_parameters: ['max_tokens', 'temperature', 'response_format', 'structured_outputs'],
  }),
  modelRow('~anthropic/claude-sonnet-latest', { alias_target: 'anthropic/claude-sonnet-4.5' }),
  modelRow('google/gemini-3-pro', { pricing: pricing('0.000002', '0.000012') }),
  // An alias with prices of its own keeps them.
  modelRow('~google/gemini-pro-latest', { alias_target: 'google/gemini-3-pro', pricing: pricing('0.0000025', '0.000013') }),
  modelRow('perplexity/sonar', { pricing: pricing('0.000001', '0.000001', { request: '0.005' }) }),
  modelRow('perplexity/sonar-deep-research', { pricing: pricing('0.000002', '0.000008', { internal_reasoning: '0.000003' }) }),
  modelRow('openrouter/auto', { pricing: { prompt: '-1', completion: '-1' } }),
  modelRow('z-ai/glm-4.6', { pricing: pricing('0.0000004', '0.00000175'), supported_parameters: ['max_tokens', 'response_format'] }),
  modelRow('z-ai/glm-4.6:exacto', {
    pricing: pricing('0.00000043', '0.0000019'),
    supported_parameters: ['max_tokens', 'response_format', 'structured_outputs'],
  }),
  modelRow('x-ai/grok-4.1-fast', { pricing: pricing('0.0000002', '0.0000005') }),
  modelRow('x-ai/grok-4.1-fast:free', { pricing: pricing('0', '0') }),
  modelRow('~loop/a-latest', { alias_target: '~loop/b-latest' }),
  modelRow('~loop/b-latest', { alias_target: '~loop/a-latest' }),
  { id: 'odd/junk-pricing', pricing: 'call us', alias_target: 42, supported_parameters: 'all of them' },
  { id: 'odd/unreadable-price', pricing: { prompt: 'cheap', completion: '0.00001' } },
];
