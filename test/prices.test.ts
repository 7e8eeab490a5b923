import { describe, expect, it } from 'vitest';
import { PriceTable, priceListSchema, priceOf, usdPerToken } from '../src/openrouter/prices.js';
import { PRICE_ROWS, pricing } from './support/price-rows.js';

const table = new PriceTable(priceListSchema.parse({ data: PRICE_ROWS }).data);

describe('usdPerToken', () => {
  it.each([
    ['0.000003', 0.000003],
    ['0', 0],
    [0.5, 0.5],
    [' 0.1 ', 0.1],
  ])('reads %j as %d dollars per token', (given, expected) => {
    expect(usdPerToken(given)).toBe(expected);
  });

  it.each([['-1'], [-1], [''], ['  '], ['cheap'], ['NaN'], ['Infinity'], [null], [undefined]])('reads %j as unknown', (given) => {
    expect(usdPerToken(given)).toBeUndefined();
  });
});

describe('priceOf', () => {
  it('prices reasoning tokens as completion tokens when internal_reasoning is zero, as most models list it', () => {
    expect(priceOf(pricing('0.000003', '0.000015'))).toEqual({ prompt: 0.000003, completion: 0.000015, reasoning: 0.000015, request: 0 });
  });

  it('prices reasoning tokens at internal_reasoning when it is set, and keeps a per-request price', () => {
    expect(priceOf(pricing('0.000002', '0.000008', { internal_reasoning: '0.000003', request: '0.005' }))).toEqual({
      prompt: 0.000002,
      completion: 0.000008,
      reasoning: 0.000003,
      request: 0.005,
    });
  });

  it('has no price when the prompt or completion price is unknown, and treats missing extras as zero', () => {
    expect(priceOf({ prompt: '-1', completion: '-1' })).toBeUndefined();
    expect(priceOf({ prompt: '0.1' })).toBeUndefined();
    expect(priceOf(undefined)).toBeUndefined();
    expect(priceOf({ prompt: '0.1', completion: '0.2' })).toEqual({ prompt: 0.1, completion: 0.2, reasoning: 0.2, request: 0 });
  });
});

describe('priceListSchema', () => {
  it('keeps every row when one has junk for its pricing or alias, dropping only that field', () => {
    const rows = priceListSchema.parse({ data: PRICE_ROWS }).data;
    expect(rows).toHaveLength(PRICE_ROWS.length);
    const junk = rows.find((row) => row.id === 'odd/junk-pricing')!;
    expect(junk.pricing).toBeUndefined();
    expect(junk.alias_target).toBeUndefined();
    expect(junk.supported_parameters).toBeUndefined();
  });

  it('reads a bare OpenAI-compatible list (ids only)', () => {
    expect(priceListSchema.parse({ data: [{ id: 'local', object: 'model' }] }).data).toEqual([{ id: 'local', object: 'model' }]);
  });
});

describe('PriceTable.takes', () => {
  it('says whether a model takes a parameter by its own row, its alias’s target or its unlisted variant’s base model', () => {
    expect(table.takes('anthropic/claude-sonnet-4.5', 'structured_outputs')).toBe(true);
    expect(table.takes('~anthropic/claude-sonnet-latest', 'structured_outputs')).toBe(true);
    expect(table.takes('anthropic/claude-sonnet-4.5:nitro', 'structured_outputs')).toBe(true);
    // A listed variant's own list counts, either way.
    expect(table.takes('z-ai/glm-4.6', 'structured_outputs')).toBe(false);
    expect(table.takes('z-ai/glm-4.6:exacto', 'structured_outputs')).toBe(true);
    expect(table.takes('z-ai/glm-4.6', 'response_format')).toBe(true);
  });

  it('does not know for a row without a list, a model not listed, or an alias loop', () => {
    expect(table.takes('google/gemini-3-pro', 'structured_outputs')).toBeUndefined();
    expect(table.takes('nobody/model', 'structured_outputs')).toBeUndefined();
    expect(table.takes('~loop/a-latest', 'structured_outputs')).toBeUndefined();
    expect(table.takes('odd/junk-pricing', 'structured_outputs')).toBeUndefined();
  });
});

describe('PriceTable.lookup', () => {
  it('finds a listed model’s own price', () => {
    expect(table.lookup('anthropic/claude-sonnet-4.5')).toEqual({
      ok: true,
      pricedAs: 'anthropic/claude-sonnet-4.5',
      price: expect.objectContaining({ prompt: 0.000003 }),
    });
  });

  it('prices an alias without prices of its own as its target', () => {
    expect(table.lookup('~anthropic/claude-sonnet-latest')).toMatchObject({ ok: true, pricedAs: 'anthropic/claude-sonnet-4.5' });
  });

  it('keeps an alias’s own prices when it has them', () => {
    expect(table.lookup('~google/gemini-pro-latest')).toMatchObject({
      ok: true,
      pricedAs: '~google/gemini-pro-latest',
      price: { prompt: 0.0000025 },
    });
  });

  it('prices an unlisted variant as its base model, and a listed variant as itself', () => {
    expect(table.lookup('x-ai/grok-4.1-fast:nitro')).toMatchObject({ ok: true, pricedAs: 'x-ai/grok-4.1-fast' });
    expect(table.lookup('z-ai/glm-4.6:floor')).toMatchObject({ ok: true, pricedAs: 'z-ai/glm-4.6' });
    expect(table.lookup('z-ai/glm-4.6:exacto')).toMatchObject({ ok: true, pricedAs: 'z-ai/glm-4.6:exacto', price: { prompt: 0.00000043 } });
    expect(table.lookup('x-ai/grok-4.1-fast:free')).toMatchObject({
      ok: true,
      pricedAs: 'x-ai/grok-4.1-fast:free',
      price: { prompt: 0, completion: 0 },
    });
  });

  it('prices a variant of an alias as the alias’s target', () => {
    expect(table.lookup('~anthropic/claude-sonnet-latest:nitro')).toMatchObject({ ok: true, pricedAs: 'anthropic/claude-sonnet-4.5' });
  });

  it('says a router has no fixed price', () => {
    const lookup = table.lookup('openrouter/auto');
    expect(lookup.ok).toBe(false);
    expect(!lookup.ok && lookup.reason).toMatch(/openrouter\/auto.*no fixed price/);
  });

  it('says a model is not in the list, naming the id it was priced as', () => {
    expect(table.lookup('acme/unknown')).toEqual({ ok: false, reason: "acme/unknown is not in OpenRouter's model list" });
    expect(table.lookup('acme/unknown:nitro')).toEqual({
      ok: false,
      reason: "acme/unknown is not in OpenRouter's model list (acme/unknown:nitro is priced as acme/unknown)",
    });
  });

  it('says a listed model has no price when its prices are unreadable or junk', () => {
    expect(table.lookup('odd/unreadable-price')).toEqual({ ok: false, reason: 'OpenRouter lists no price for odd/unreadable-price' });
    expect(table.lookup('odd/junk-pricing')).toEqual({ ok: false, reason: 'OpenRouter lists no price for odd/junk-pricing' });
  });

  it('ends an alias loop with no price instead of looping', () => {
    expect(table.lookup('~loop/a-latest')).toMatchObject({ ok: false });
  });
});
