import { z } from 'zod';

/** The pieces of a run's record that several of its parts share (record.ts, record-strategy.ts). */
export const usageSchema = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
  /** In credits (US dollars), as OpenRouter reports it. */
  cost: z.number().optional(),
});

export const modelErrorSchema = z.object({
  kind: z.string(),
  message: z.string(),
  status: z.number().optional(),
  code: z.string().optional(),
  retry_after_ms: z.number().optional(),
  /** What the user can do about it. */
  advice: z.string().optional(),
});
export type ModelError = z.infer<typeof modelErrorSchema>;
