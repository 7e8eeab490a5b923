import { afterEach, describe, expect, it } from 'vitest';
import { fetchPriceRows } from '../src/openrouter/catalog.js';
import { priceListSchema, type PriceRow } from '../src/openrouter/prices.js';
import {
  PRICES_MAX_AGE_MS,
  PriceCatalog,
  priceCatalogFor,
  takesStructuredOutput,
  type PriceCatalogOptions,
} from '../src/openrouter/price-catalog.js';
import { modelRow, startCatalogServer, type CatalogOptions, type CatalogServer } from './support/catalog-server.js';
import { testClient } from './support/client.js';
import { pricing } from './support/price-rows.js';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

/** A clock the test moves by hand. */
function manualClock() {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function serve(models: CatalogOptions['models']): Promise<CatalogServer> {
  const server = await startCatalogServer({ models });
  closers.push(server);
  return server;
}

/** A catalog reading `server` through a real client, on `clock`. */
function catalogOf(server: CatalogServer, options: Partial<PriceCatalogOptions> = {}): PriceCatalog {
  const client = testClient(server.url);
  closers.push(client);
  return new PriceCatalog({ load: (signal) => fetchPriceRows(client, signal), ...options });
}

const sonnetAt = (prompt: string) => [modelRow('anthropic/claude-sonnet-4.5', { pricing: pricing(prompt, '0.000015') })];

async function promptPrice(catalog: PriceCatalog): Promise<number | undefined> {
  const prices = await catalog.prices();
  if (!prices.ok) return undefined;
  const lookup = prices.value.table.lookup('anthropic/claude-sonnet-4.5');
  return lookup.ok ? lookup.price.prompt : undefined;
}

describe('PriceCatalog against a real GET /models', () => {
  it('fetches the prices once and serves them from memory, with their age, while they are fresh', async () => {
    const server = await serve(sonnetAt('0.000003'));
    const clock = manualClock();
    const catalog = catalogOf(server, { now: clock.now });

    expect(await promptPrice(catalog)).toBe(0.000003);
    clock.advance(PRICES_MAX_AGE_MS - 1);
    const prices = await catalog.prices();
    expect(prices.ok && prices.value.ageMs).toBe(PRICES_MAX_AGE_MS - 1);
    expect(prices.ok && Date.parse(prices.value.fetchedAt)).toBeGreaterThan(0);
    expect(prices.ok && prices.value.refreshFailed).toBeUndefined();
    expect(server.hits['/models']).toBe(1);
  });

  it('refreshes prices older than an hour', async () => {
    let prompt = '0.000003';
    const server = await serve(() => sonnetAt(prompt));
    const clock = manualClock();
    const catalog = catalogOf(server, { now: clock.now });

    expect(await promptPrice(catalog)).toBe(0.000003);
    prompt = '0.000004';
    clock.advance(PRICES_MAX_AGE_MS);
    expect(await promptPrice(catalog)).toBe(0.000004);
    expect(server.hits['/models']).toBe(2);
  });

  it('makes one request for many callers asking at once', async () => {
    const server = await serve(sonnetAt('0.000003'));
    const catalog = catalogOf(server);
    const prices = await Promise.all(Array.from({ length: 8 }, () => promptPrice(catalog)));
    expect(prices).toEqual(Array(8).fill(0.000003));
    expect(server.hits['/models']).toBe(1);
  });

  it('keeps the old prices, saying how old and why, when a refresh fails; tries again only after a pause', async () => {
    let models: 'missing' | Array<Record<string, unknown>> = sonnetAt('0.000003');
    const server = await serve(() => models);
    const clock = manualClock();
    const catalog = catalogOf(server, { now: clock.now, retryAfterMs: 60_000 });
    await catalog.prices();

    models = 'missing';
    clock.advance(PRICES_MAX_AGE_MS + 5);
    const stale = await catalog.prices();
    expect(stale.ok).toBe(true);
    expect(stale.ok && stale.value.ageMs).toBe(PRICES_MAX_AGE_MS + 5);
    expect(stale.ok && stale.value.refreshFailed).toMatch(/GET \/models failed: .*404/);
    expect(await promptPrice(catalog)).toBe(0.000003);
    expect(server.hits['/models']).toBe(2);

    models = sonnetAt('0.000005');
    clock.advance(60_000);
    const fresh = await catalog.prices();
    expect(fresh.ok && fresh.value.refreshFailed).toBeUndefined();
    expect(await promptPrice(catalog)).toBe(0.000005);
    expect(server.hits['/models']).toBe(3);
  });

  it('gives up on a GET /models that never answers after its time limit, with a typed error and what to do', async () => {
    const server = await serve('hang');
    const catalog = catalogOf(server, { fetchLimitMs: 150 });
    const prices = await catalog.prices();
    expect(prices).toEqual({
      ok: false,
      error: {
        kind: 'prices_unavailable',
        message: expect.stringMatching(/no answer within 150 ms/),
        advice: expect.stringMatching(/try again/),
      },
    });
  });

  it('tries again at the next call when it has never had prices', async () => {
    let models: 'missing' | Array<Record<string, unknown>> = 'missing';
    const server = await serve(() => models);
    const catalog = catalogOf(server);
    expect((await catalog.prices()).ok).toBe(false);
    models = sonnetAt('0.000003');
    expect(await promptPrice(catalog)).toBe(0.000003);
    expect(server.hits['/models']).toBe(2);
  });

  it('reads prices through the client it is given (priceCatalogFor)', async () => {
    const server = await serve(sonnetAt('0.000007'));
    const client = testClient(server.url);
    closers.push(client);
    expect(await promptPrice(priceCatalogFor(client))).toBe(0.000007);
  });
});

describe('the catalog for a choice with a safe default (settled, takesStructuredOutput)', () => {
  /** A load the test answers by hand: each call waits until `answer` or `fail`. */
  function handLoad() {
    const waiting: Array<{ resolve(rows: PriceRow[]): void; reject(error: Error): void }> = [];
    return {
      waiting,
      load: () => new Promise<PriceRow[]>((resolve, reject) => void waiting.push({ resolve, reject })),
      answer: (rows: Array<Record<string, unknown>>) => waiting.shift()!.resolve(priceListSchema.parse({ data: rows }).data),
      fail: () => waiting.shift()!.reject(new Error('HTTP 502')),
    };
  }
  const rows = [
    modelRow('json/yes', { supported_parameters: ['response_format', 'structured_outputs'] }),
    modelRow('json/no', { supported_parameters: ['response_format'] }),
    modelRow('json/unsaid'),
  ];

  it('waits for the first read of the list, then answers from memory, a stale list without waiting for its refresh', async () => {
    const hand = handLoad();
    const clock = manualClock();
    const catalog = new PriceCatalog({ load: hand.load, now: clock.now });
    let settled = false;
    const first = catalog.settled().then((prices) => {
      settled = true;
      return prices;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    hand.answer(rows);
    expect((await first)?.table.takes('json/yes', 'structured_outputs')).toBe(true);
    clock.advance(PRICES_MAX_AGE_MS + 1);
    // A refresh is started and left pending: the old list serves.
    expect((await catalog.settled())?.table.takes('json/no', 'structured_outputs')).toBe(false);
    expect(hand.waiting).toHaveLength(1);
  });

  it('says no model takes structured output when the list cannot be read, and does not wait again while that failure is fresh', async () => {
    const hand = handLoad();
    const clock = manualClock();
    const catalog = new PriceCatalog({ load: hand.load, now: clock.now, retryAfterMs: 60_000 });
    const first = takesStructuredOutput(catalog, 'json/yes');
    await Promise.resolve();
    hand.fail();
    expect(await first).toBe(false);
    // Another read is started, but nothing waits for it.
    expect(await takesStructuredOutput(catalog, 'json/yes')).toBe(false);
    expect(hand.waiting).toHaveLength(1);
    const read = catalog.prices();
    hand.answer(rows);
    expect((await read).ok).toBe(true);
    expect(await takesStructuredOutput(catalog, 'json/yes')).toBe(true);
    expect(await takesStructuredOutput(catalog, 'json/no')).toBe(false);
    expect(await takesStructuredOutput(catalog, 'json/unsaid')).toBe(false);
    expect(await takesStructuredOutput(catalog, 'json/unlisted')).toBe(false);
  });
});
