import type { OpenRouterClient } from './client.js';
import { priceListSchema, type PriceRow } from './prices.js';
import { keyInfoSchema, modelListSchema, type KeyInfo, type ModelRow } from './schemas.js';

/** OpenRouter's description of the key (GET /key), for `doctor`. */
export async function fetchKeyInfo(client: OpenRouterClient, signal?: AbortSignal): Promise<KeyInfo> {
  return (await client.getJson('/key', keyInfoSchema, signal)).data;
}

/** Every model the API offers (GET /models), aliases included, for `doctor`. */
export async function fetchModels(client: OpenRouterClient, signal?: AbortSignal): Promise<ModelRow[]> {
  return (await client.getJson('/models', modelListSchema, signal)).data;
}

/** Every model's price row (GET /models), for the worst-case cost of a call. */
export async function fetchPriceRows(client: OpenRouterClient, signal?: AbortSignal): Promise<PriceRow[]> {
  return (await client.getJson('/models', priceListSchema, signal)).data;
}
