import * as z from 'zod';

/**
 * Model prices from GET /models. OpenRouter writes each price as a string of US dollars per
 * token ("0.000003"); "-1" means there is no fixed price (a router such as `openrouter/auto`).
 * The schema reads only `id`, `pricing`, `alias_target` and `supported_parameters`, and a strange
 * field costs only that row what it says, never the whole list.
 */
const priceField = z.union([z.string(), z.number()]).nullish().catch(undefined);

const pricingSchema = z.looseObject({
  prompt: priceField,
  completion: priceField,
  /** A fixed price per request, on top of tokens (search models). */
  request: priceField,
  /** Reasoning tokens' own price where it differs; "0" on most models, which bill them as completion. */
  internal_reasoning: priceField,
});

export const priceListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      pricing: pricingSchema.nullish().catch(undefined),
      alias_target: z.looseObject({ slug: z.string() }).nullish().catch(undefined),
      /** The request parameters the model takes: `structured_outputs` means a JSON schema as `response_format`. */
      supported_parameters: z.array(z.string()).nullish().catch(undefined),
    }),
  ),
});
export type PriceRow = z.infer<typeof priceListSchema>['data'][number];
type Pricing = z.infer<typeof pricingSchema>;

/** US dollars per token, and per request. */
export interface ModelPrice {
  prompt: number;
  completion: number;
  /** `internal_reasoning` when OpenRouter sets one above zero, else the completion price. */
  reasoning: number;
  request: number;
}

export type PriceLookup =
  /** `pricedAs`: the row whose price this is (an alias's target, a variant's base model). */
  { ok: true; price: ModelPrice; pricedAs: string } | { ok: false; reason: string };

/** A price field as dollars per token; undefined when missing, "-1", negative or not a number. */
export function usdPerToken(value: string | number | null | undefined): number | undefined {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** A row's price, when its prompt and completion prices are both known. */
export function priceOf(pricing: Pricing | null | undefined): ModelPrice | undefined {
  const prompt = usdPerToken(pricing?.prompt);
  const completion = usdPerToken(pricing?.completion);
  if (prompt === undefined || completion === undefined) return undefined;
  const reasoning = usdPerToken(pricing?.internal_reasoning);
  return { prompt, completion, reasoning: reasoning ? reasoning : completion, request: usdPerToken(pricing?.request) ?? 0 };
}

/** `vendor/model` for `vendor/model:nitro` (OpenRouter's variants: :free, :nitro, :floor, :thinking...). */
export function variantBase(id: string): string | undefined {
  const colon = id.lastIndexOf(':');
  return colon > id.lastIndexOf('/') && colon > 0 ? id.slice(0, colon) : undefined;
}

/** Every model's price by id, with OpenRouter's aliases and variants resolved. */
export class PriceTable {
  private readonly rows = new Map<string, PriceRow>();

  constructor(rows: readonly PriceRow[]) {
    for (const row of rows) this.rows.set(row.id, row);
  }

  /**
   * The price of `model`: its own row's; for a `~vendor/...-latest` alias without one, its
   * target's; for a variant that is not listed itself, its base model's (an upper bound for
   * `:free` and `:floor`). Otherwise why there is none.
   */
  lookup(model: string): PriceLookup {
    const found = this.follow(model, (row) => priceOf(row?.pricing));
    if (found.value) return { ok: true, price: found.value, pricedAs: found.id };
    return { ok: false, reason: this.whyUnpriced(model, found.id, found.row) };
  }

  /** Whether `model` takes `parameter`, by the first row on the way that lists its parameters; undefined when none does. */
  takes(model: string, parameter: string): boolean | undefined {
    return this.follow(model, (row) => row?.supported_parameters?.includes(parameter)).value;
  }

  /** From `model`'s own row to its alias's target or its unlisted variant's base, until `read` finds a value. */
  private follow<T>(model: string, read: (row: PriceRow | undefined) => T | undefined): { value?: T; id: string; row?: PriceRow } {
    let id = model;
    for (let depth = 0; ; depth++) {
      const row = this.rows.get(id);
      const value = read(row);
      if (value !== undefined) return { value, id, row };
      // Two hops cover an alias of a variant; more would be a loop in the list.
      const next = depth < 2 ? (row?.alias_target?.slug ?? (row ? undefined : variantBase(id))) : undefined;
      if (next === undefined || next === id) return { id, row };
      id = next;
    }
  }

  private whyUnpriced(asked: string, id: string, row: PriceRow | undefined): string {
    const via = asked === id ? '' : ` (${asked} is priced as ${id})`;
    if (!row) return `${id} is not in OpenRouter's model list${via}`;
    const varies = Number(row.pricing?.prompt) === -1 || Number(row.pricing?.completion) === -1;
    return varies
      ? `OpenRouter gives ${id} no fixed price: it depends on the model it routes to${via}`
      : `OpenRouter lists no price for ${id}${via}`;
  }
}
