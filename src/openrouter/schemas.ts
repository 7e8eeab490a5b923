import { z } from 'zod';

/**
 * Loose schemas: only the fields we read, and every unknown field passes, so a new
 * field from OpenRouter or a provider never breaks a call.
 */
const nullableString = z.string().nullish();

const errorObjectSchema = z.looseObject({
  code: z.union([z.number(), z.string()]).nullish(),
  /** Availability errors carry the status here instead of in `code`. */
  http_status: z.number().nullish(),
  message: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  /** OpenRouter's own retry hint for capacity errors. */
  availability: z.looseObject({ retryable: z.boolean().nullish(), retry_after: z.number().nullish() }).nullish(),
});
export type ErrorObject = z.infer<typeof errorObjectSchema>;

export const errorBodySchema = z.looseObject({ error: errorObjectSchema });

const usageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  cost: z.number().nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});
export type UsageBody = z.infer<typeof usageSchema>;

const messagePartSchema = z.looseObject({
  content: nullableString,
  reasoning: nullableString,
});

const choiceSchema = z.looseObject({
  message: messagePartSchema.nullish(),
  delta: messagePartSchema.nullish(),
  finish_reason: nullableString,
  error: errorObjectSchema.nullish(),
});

/** A whole completion and a streamed chunk share one shape: choices, usage, maybe an error. */
export const completionBodySchema = z.looseObject({
  id: nullableString,
  model: nullableString,
  provider: nullableString,
  choices: z.array(choiceSchema).nullish(),
  usage: usageSchema.nullish(),
  error: errorObjectSchema.nullish(),
});
export type CompletionBody = z.infer<typeof completionBodySchema>;

export const keyInfoSchema = z.looseObject({
  data: z.looseObject({
    label: nullableString,
    limit: z.number().nullish(),
    limit_remaining: z.number().nullish(),
    usage: z.number().nullish(),
    is_free_tier: z.boolean().nullish(),
  }),
});
export type KeyInfo = z.infer<typeof keyInfoSchema>['data'];

/** GET /models: OpenRouter's rows, or any OpenAI-compatible list (`{ data: [{ id }] }`). */
export const modelListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string(),
      canonical_slug: nullableString,
      /** Unix seconds. */
      created: z.number().nullish(),
      /** YYYY-MM-DD after which OpenRouter may remove the model. */
      expiration_date: nullableString,
      /** For a `~vendor/...-latest` alias: the model it points at today. */
      alias_target: z.looseObject({ slug: z.string() }).nullish(),
    }),
  ),
});
export type ModelRow = z.infer<typeof modelListSchema>['data'][number];
