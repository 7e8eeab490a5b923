import * as z from 'zod';

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

/** A part of `content` given as parts (Mistral): text is the answer. */
export const textPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
/** Mistral's reasoning, as a string or as text parts of its own. */
export const thinkingPartSchema = z.looseObject({ type: z.literal('thinking'), thinking: z.union([z.string(), z.array(z.unknown())]) });

const messagePartSchema = z.looseObject({
  /** A string, or parts; parts of types we do not know are skipped, not refused. */
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  reasoning: nullableString,
  reasoning_content: nullableString,
});
export type MessagePart = z.infer<typeof messagePartSchema>;

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
  /** Any shape: usage.ts reads what it can, and a strange report never costs the answer. */
  usage: z.unknown().optional(),
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
