import { createHash } from 'node:crypto';
import { z } from 'zod';

/** What a run asks: the same request twice is the same run (SPEC §8, no double billing). */
export const requestSchema = z.object({
  prompt: z.string(),
  models: z.array(z.string()).min(1),
  /** Tried in order until one synthesizes. */
  synthesizers: z.array(z.string()).min(1),
  temperature: z.number(),
  maxTokens: z.number().int().positive(),
});
export type RunRequest = z.infer<typeof requestSchema>;

/**
 * A fingerprint of everything that shapes the answers, and of who is asked and who pays (the
 * upstream's URL and a hash of the API key): two requests with the same key are one run, paid once,
 * and a request paid by another key never attaches to it.
 */
export function requestKey(request: RunRequest, upstream: string): string {
  const canonical = JSON.stringify([upstream, request.prompt, request.models, request.synthesizers, request.temperature, request.maxTokens]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}
