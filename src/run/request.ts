import { API_KEY_SHAPE } from '../config/api-key.js';
import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { ReasoningEffort, Strategy } from '../config/choices.js';
import type { RunRequest } from './request-schema.js';

export type { RunRequest } from './request-schema.js';

/**
 * Two requests with the same key are one run, paid once. Later settings count only when set apart
 * from the defaults, so that a run saved before they existed is still found by the same request.
 */
export function requestKey(request: RunRequest, upstream: string): string {
  const { strategy, reasoningEffort, followUpOf, agreement } = request;
  const beyondDefaults = {
    ...(strategy === 'synthesize' ? {} : { strategy }),
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(agreement === false ? { agreement } : {}),
    ...(followUpOf === undefined ? {} : { followUpOf }),
  };
  const canonical = JSON.stringify([
    upstream,
    request.prompt,
    request.models,
    request.synthesizers,
    request.temperature,
    request.maxTokens,
    ...(Object.keys(beyondDefaults).length === 0 ? [] : [beyondDefaults]),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

/** What one call may set for itself, named as process_prompt's arguments name it. */
export interface CallSettings {
  models?: string[] | undefined;
  synthesizer_model?: string | string[] | undefined;
  temperature?: number | undefined;
  max_tokens?: number | undefined;
  strategy?: Strategy | undefined;
  reasoning_effort?: ReasoningEffort | undefined;
  agreement?: boolean | undefined;
  follow_up_of?: string | undefined;
  /** Not part of the request. */
  max_cost_usd?: number | undefined;
}

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

/** A key pasted where a model id belongs would be written to the journal, file names and logs: refused. */
export function refuseKeyAsModel(request: RunRequest, redact: (text: string) => string): void {
  if ([...request.models, ...request.synthesizers].some((id) => API_KEY_SHAPE.test(id) || redact(id) !== id)) {
    throw new TypeError(
      'a model id of the request is an API key: the key goes in OPENROUTER_API_KEY, model ids in models and synthesizer_model',
    );
  }
}
