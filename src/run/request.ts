import { API_KEY_SHAPE } from '../config/api-key.js';
import { createHash } from 'node:crypto';
import type { RunRecord } from './record.js';
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

/** A key pasted where a model id belongs would be written to the journal, file names and logs: refused. */
export function refuseKeyAsModel(request: RunRequest, redact: (text: string) => string): void {
  if ([...request.models, ...request.synthesizers].some((id) => API_KEY_SHAPE.test(id) || redact(id) !== id)) {
    throw new TypeError(
      'a model id of the request is an API key: the key goes in OPENROUTER_API_KEY, model ids in models and synthesizer_model',
    );
  }
}

/** The request a run's record was made from: the same key, so a start of it finds the run again. */
export function requestOf(record: RunRecord): RunRequest {
  const { settings } = record;
  return {
    prompt: record.prompt,
    models: settings.models,
    synthesizers: settings.synthesizer_models,
    temperature: settings.temperature,
    maxTokens: settings.max_tokens,
    strategy: settings.strategy ?? 'synthesize',
    ...(settings.reasoning_effort === undefined ? {} : { reasoningEffort: settings.reasoning_effort }),
    ...(settings.agreement === false ? { agreement: false as const } : {}),
    ...(record.follow_up_of === undefined ? {} : { followUpOf: record.follow_up_of }),
  };
}
