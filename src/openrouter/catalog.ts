import type { OpenRouterClient } from './client.js';
import { keyInfoSchema, modelListSchema, type KeyInfo, type ModelRow } from './schemas.js';

/** OpenRouter's description of the key (GET /key), for `doctor`. */
export async function fetchKeyInfo(client: OpenRouterClient, signal?: AbortSignal): Promise<KeyInfo> {
  return (await client.getJson('/key', keyInfoSchema, signal)).data;
}

/** Every model the API offers (GET /models), aliases included, for `doctor`. */
export async function fetchModels(client: OpenRouterClient, signal?: AbortSignal): Promise<ModelRow[]> {
  return (await client.getJson('/models', modelListSchema, signal)).data;
}
