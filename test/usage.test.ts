import { describe, expect, it } from 'vitest';
import { addUsage, convertUsage } from '../src/openrouter/usage.js';

describe('convertUsage', () => {
  it('reads OpenRouter’s usage: tokens, reasoning tokens from the details, and cost, ignoring the rest', () => {
    const usage = {
      prompt_tokens: 43,
      completion_tokens: 119,
      total_tokens: 162,
      cost: 0.001914,
      is_byok: false,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      cost_details: { upstream_inference_cost: null, upstream_inference_prompt_cost: 0.000129 },
      completion_tokens_details: { reasoning_tokens: 82, image_tokens: 0 },
    };
    expect(convertUsage(usage)).toEqual({
      prompt_tokens: 43,
      completion_tokens: 119,
      reasoning_tokens: 82,
      total_tokens: 162,
      cost: 0.001914,
    });
  });

  it('reads an OpenAI-compatible server’s usage, which has no cost, and Groq’s, which has timings too', () => {
    expect(convertUsage({ prompt_tokens: 10, total_tokens: 56, completion_tokens: 46 })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 46,
      total_tokens: 56,
    });
    const groq = {
      queue_time: 0.17,
      prompt_tokens: 17,
      prompt_time: 0.0007,
      completion_tokens: 1107,
      total_tokens: 1124,
      completion_tokens_details: { reasoning_tokens: 963 },
    };
    expect(convertUsage(groq)).toEqual({ prompt_tokens: 17, completion_tokens: 1107, reasoning_tokens: 963, total_tokens: 1124 });
  });

  it.each([
    ['null', null],
    ['a string', 'lots'],
    ['a number', 42],
    ['an array', [1, 2, 3]],
    ['an empty object', {}],
    ['only unknown fields', { input_tokens_weird: 5, foo: 'bar' }],
    ['only unusable values', { prompt_tokens: -1, completion_tokens: 'many', total_tokens: null, cost: { usd: 1 } }],
  ])('gives undefined, never an error, for usage that is %s', (_, raw) => {
    expect(convertUsage(raw)).toBeUndefined();
  });

  it('drops negative, non-finite, absurdly large and non-numeric fields, keeping the good ones', () => {
    const raw = {
      prompt_tokens: -5,
      completion_tokens: 1e300,
      total_tokens: 30,
      cost: 'NaN',
      completion_tokens_details: { reasoning_tokens: true },
    };
    expect(convertUsage(raw)).toEqual({ total_tokens: 30 });
    expect(convertUsage({ prompt_tokens: Number.MAX_SAFE_INTEGER + 2 })).toBeUndefined();
    expect(convertUsage({ completion_tokens_details: 'none', total_tokens: 3 })).toEqual({ total_tokens: 3 });
  });

  it('reads numbers sent as strings, as some proxies send cost, and drops blank or malformed ones', () => {
    expect(convertUsage({ cost: '0.0015', prompt_tokens: ' 12 ' })).toEqual({ cost: 0.0015, prompt_tokens: 12 });
    expect(convertUsage({ cost: '', prompt_tokens: '12 tokens', total_tokens: 'Infinity' })).toBeUndefined();
  });
});

describe('addUsage', () => {
  it('adds field by field, keeping a field only one side has', () => {
    expect(addUsage({ prompt_tokens: 1, cost: 0.5 }, { prompt_tokens: 2, completion_tokens: 3 })).toEqual({
      prompt_tokens: 3,
      completion_tokens: 3,
      cost: 0.5,
    });
  });

  it('treats a missing usage as nothing', () => {
    expect(addUsage(undefined, undefined)).toEqual({});
    expect(addUsage({ total_tokens: 4 }, undefined)).toEqual({ total_tokens: 4 });
  });

  it('never overflows to Infinity, however large the figures or however many are added', () => {
    let total = addUsage(undefined, undefined);
    for (let i = 0; i < 10; i++) total = addUsage(total, { total_tokens: Number.MAX_SAFE_INTEGER, cost: Number.MAX_SAFE_INTEGER });
    expect(Number.isFinite(total.total_tokens)).toBe(true);
    expect(Number.isFinite(total.cost)).toBe(true);
    expect(total.total_tokens).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('ignores values that are not finite, non-negative numbers, should one slip in', () => {
    expect(addUsage({ cost: Infinity, prompt_tokens: Number.NaN }, { cost: 1, prompt_tokens: -3 })).toEqual({ cost: 1 });
  });
});
