import { API_KEY_SHAPE } from '../config/api-key.js';
import { createHash } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { ReasoningEffort } from '../config/choices.js';
import type { RunRequest } from './request-schema.js';
import type { Strategy } from '../config/choices.js';

export type { RunRequest } from './request-schema.js';

/**
 * A fingerprint of everything that shapes the answers, and of who is asked and who pays (the
 * upstream's URL and a hash of the API key): two requests with the same key are one run, paid once,
 * and a request paid by another key never attaches to it. The strategy, reasoning effort and
 * follow-up count only when set apart from the defaults, so that a run saved before they
 * existed is still found by the same request.
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
  /** One id, or a list tried in order. */
  synthesizer_model?: string | string[] | undefined;
  temperature?: number | undefined;
  max_tokens?: number | undefined;
  strategy?: Strategy | undefined;
  reasoning_effort?: ReasoningEffort | undefined;
  /** false: no account of where the models agreed and differed. */
  agreement?: boolean | undefined;
  /** The run_id of the run this one follows up. */
  follow_up_of?: string | undefined;
  /** Not part of the request: the cost ceiling it may start under (see admission.ts). */
  max_cost_usd?: number | undefined;
}

/** The run a call asks for: its prompt, with its own settings over the configuration's. */
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
