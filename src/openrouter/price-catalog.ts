import { monotonicNow, withinMs } from '../clock.js';
import { err, ok, type Result } from '../result.js';
import { fetchPriceRows } from './catalog.js';
import type { OpenRouterClient } from './client.js';
import { PriceTable, type PriceRow } from './prices.js';

/** Prices change a few times a month; an hour old is fresh enough for an estimate. */
export const PRICES_MAX_AGE_MS = 60 * 60_000;
/** A call waits at most this long for prices before it is refused or proceeds without them. */
const PRICES_FETCH_LIMIT_MS = 10_000;
/** After a failed refresh the old prices serve this long before the next attempt. */
const PRICES_RETRY_AFTER_MS = 60_000;

export interface Prices {
  table: PriceTable;
  /** When they were fetched (wall clock, ISO 8601), for the user. */
  fetchedAt: string;
  ageMs: number;
  /** Set when these are old prices because the latest refresh failed: why it failed. */
  refreshFailed?: string;
}

export interface PricesUnavailable {
  kind: 'prices_unavailable';
  message: string;
  advice: string;
}

export interface PriceCatalogOptions {
  /** Reads the rows (GET /models); stops when the signal aborts. */
  load: (signal: AbortSignal) => Promise<PriceRow[]>;
  maxAgeMs?: number;
  fetchLimitMs?: number;
  retryAfterMs?: number;
  /** The monotonic clock, in ms; a test's own. */
  now?: () => number;
}

interface Fetched {
  table: PriceTable;
  fetchedAt: string;
  at: number;
}

/**
 * OpenRouter's prices, fetched once and kept in memory with their age: refreshed when older
 * than `maxAgeMs`, with every caller of the moment sharing one fetch, each fetch time-limited,
 * and the old prices kept (and said to be old) when a refresh fails.
 */
export class PriceCatalog {
  private fetched: Fetched | undefined;
  private failure: { at: number; message: string } | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: PriceCatalogOptions) {
    this.now = options.now ?? monotonicNow;
  }

  async prices(): Promise<Result<Prices, PricesUnavailable>> {
    await this.fetchIfDue();
    if (this.fetched) return ok(this.view(this.fetched));
    return err({
      kind: 'prices_unavailable',
      message: `OpenRouter's prices could not be read: ${this.failure?.message ?? 'no answer'}`,
      advice: 'Without prices no worst-case cost can be checked: try again shortly, or check that OPENROUTER_BASE_URL serves GET /models.',
    });
  }

  /** The prices as they are now, without waiting: a fetch, when one is due, goes on for the next caller. */
  atHand(): Prices | undefined {
    void this.fetchIfDue();
    return this.fetched && this.view(this.fetched);
  }

  /**
   * The prices for a choice that has a safe default without them: waits for a first fetch (within
   * its time limit) unless one failed lately, and never for a refresh of prices already at hand.
   */
  async settled(): Promise<Prices | undefined> {
    const failedLately = this.failure !== undefined && this.now() - this.failure.at < (this.options.retryAfterMs ?? PRICES_RETRY_AFTER_MS);
    const fetching = this.fetchIfDue();
    if (!this.fetched && !failedLately) await fetching;
    return this.fetched && this.view(this.fetched);
  }

  private fetchIfDue(): Promise<void> | undefined {
    if (this.needsFetch()) this.inFlight ??= this.refresh().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private needsFetch(): boolean {
    if (!this.fetched) return true;
    if (this.now() - this.fetched.at < (this.options.maxAgeMs ?? PRICES_MAX_AGE_MS)) return false;
    // Stale prices still serve while a failed refresh waits to be tried again.
    return !this.failure || this.now() - this.failure.at >= (this.options.retryAfterMs ?? PRICES_RETRY_AFTER_MS);
  }

  private async refresh(): Promise<void> {
    try {
      const rows = await this.loadWithinLimit();
      this.fetched = { table: new PriceTable(rows), fetchedAt: new Date().toISOString(), at: this.now() };
      this.failure = undefined;
    } catch (caught) {
      this.failure = { at: this.now(), message: `GET /models failed: ${caught instanceof Error ? caught.message : String(caught)}` };
    }
  }

  private loadWithinLimit(): Promise<PriceRow[]> {
    const limitMs = this.options.fetchLimitMs ?? PRICES_FETCH_LIMIT_MS;
    return withinMs(
      limitMs,
      (signal) => this.options.load(signal),
      () => new Error(`no answer within ${limitMs} ms`),
    );
  }

  private view(fetched: Fetched): Prices {
    const stale = this.failure && this.failure.at >= fetched.at ? { refreshFailed: this.failure.message } : {};
    return { table: fetched.table, fetchedAt: fetched.fetchedAt, ageMs: Math.max(0, this.now() - fetched.at), ...stale };
  }
}

/** OpenRouter's name, in `supported_parameters`, for a JSON schema as `response_format`. */
const STRUCTURED_OUTPUTS = 'structured_outputs';

/** Whether `model` takes structured output, as GET /models says; no when the list cannot be read or does not say. */
export async function takesStructuredOutput(catalog: Pick<PriceCatalog, 'settled'>, model: string): Promise<boolean> {
  return (await catalog.settled())?.table.takes(model, STRUCTURED_OUTPUTS) === true;
}

/** The catalog of the prices `client`'s upstream lists. */
export function priceCatalogFor(client: OpenRouterClient): PriceCatalog {
  return new PriceCatalog({ load: (signal) => fetchPriceRows(client, signal) });
}
