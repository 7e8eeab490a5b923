import * as z from 'zod';
import { REASONING_EFFORTS, STRATEGIES } from '../config/choices.js';

/** What a run asks: the same request twice is the same run (SPEC §8, no double billing). */
export const requestSchema = z.object({
  prompt: z.string(),
  models: z.array(z.string()).min(1),
  synthesizers: z.array(z.string()).min(1),
  temperature: z.number(),
  maxTokens: z.number().int().positive(),
  strategy: z.enum(STRATEGIES),
  /** Sent as OpenRouter's `reasoning.effort` to every candidate and step. */
  reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
  agreement: z.literal(false).optional(),
  followUpOf: z.string().optional(),
});
export type RunRequest = z.infer<typeof requestSchema>;
