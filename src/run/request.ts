import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../config.js';

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

/** What one call may set for itself, named as process_prompt's arguments name it. */
export interface CallSettings {
  models?: string[] | undefined;
  /** One id, or a list tried in order. */
  synthesizer_model?: string | string[] | undefined;
  temperature?: number | undefined;
  max_tokens?: number | undefined;
}

/** The run a call asks for: its prompt, with its own settings over the configuration's. */
export function runRequest(prompt: string, settings: CallSettings, config: Config): RunRequest {
  return {
    prompt,
    models: settings.models ?? config.models,
    synthesizers: settings.synthesizer_model === undefined ? config.synthesizerModels : [settings.synthesizer_model].flat(),
    temperature: settings.temperature ?? config.temperature,
    maxTokens: settings.max_tokens ?? config.maxTokens,
  };
}
