import { createHash } from 'node:crypto';

/** What a run asks: the same request twice is the same run (SPEC §8, no double billing). */
export interface RunRequest {
  prompt: string;
  models: string[];
  /** Tried in order until one synthesizes. */
  synthesizers: string[];
  temperature: number;
  maxTokens: number;
}

/**
 * A fingerprint of everything that shapes the answers, the upstream included: two requests
 * with the same key would be billed for the same answers.
 */
export function requestKey(request: RunRequest, upstream: string): string {
  const canonical = JSON.stringify([upstream, request.prompt, request.models, request.synthesizers, request.temperature, request.maxTokens]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}
