import type { OpenRouterClient } from './client.js';
import { keyInfoSchema, modelListSchema, type KeyInfo } from './schemas.js';

/** OpenRouter's description of the key (GET /key), for `doctor`. */
export async function fetchKeyInfo(client: OpenRouterClient, signal?: AbortSignal): Promise<KeyInfo> {
  return (await client.getJson('/key', keyInfoSchema, signal)).data;
}

/** Every model id the API offers (GET /models), for `doctor`. */
export async function fetchModelIds(client: OpenRouterClient, signal?: AbortSignal): Promise<Set<string>> {
  const { data } = await client.getJson('/models', modelListSchema, signal);
  return new Set(data.flatMap((model) => [model.id, model.canonical_slug ?? model.id]));
}
