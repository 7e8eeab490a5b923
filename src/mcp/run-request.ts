import type * as z from 'zod';
import type { Config } from '../config/config.js';
import type { RunRequest } from '../run/request.js';
import type { callSettingsShape } from './input-schema.js';

/** What one call may set for itself: process_prompt's arguments beside the prompt, and `ask`'s flags. */
export type CallSettings = z.infer<z.ZodObject<typeof callSettingsShape>>;

/** The run a call asks for: its own settings over the configuration. */
export function runRequest(prompt: string, settings: CallSettings, config: Config): RunRequest {
  const reasoningEffort = settings.reasoning_effort ?? config.reasoningEffort;
  return {
    prompt,
    models: settings.models ?? config.models,
    synthesizers: settings.synthesizer_model === undefined ? config.synthesizerModels : [settings.synthesizer_model].flat(),
    temperature: settings.temperature ?? config.temperature,
    maxTokens: settings.max_tokens ?? config.maxTokens,
    strategy: settings.strategy ?? config.strategy,
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...((settings.agreement ?? config.agreement) ? {} : { agreement: false as const }),
    ...(settings.follow_up_of === undefined ? {} : { followUpOf: settings.follow_up_of }),
  };
}

/** A calling model may tighten the user's PARALLEL_LLM_MAX_COST_USD, never loosen it. */
export function effectiveCeiling(callUsd: number | undefined, serverUsd: number | undefined): number | undefined {
  if (callUsd === undefined) return serverUsd;
  return serverUsd === undefined ? callUsd : Math.min(callUsd, serverUsd);
}
