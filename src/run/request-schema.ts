import { z } from 'zod';
import { REASONING_EFFORTS, STRATEGIES } from '../config/choices.js';

/** What a run asks: the same request twice is the same run (SPEC §8, no double billing). */
export const requestSchema = z.object({
  prompt: z.string(),
  models: z.array(z.string()).min(1),
  /** Tried in order until one synthesizes (or judges). */
  synthesizers: z.array(z.string()).min(1),
  temperature: z.number(),
  maxTokens: z.number().int().positive(),
  /** How the answers become one (SPEC §10). */
  strategy: z.enum(STRATEGIES),
  /** Sent as OpenRouter's `reasoning.effort` to every candidate and step; absent, not sent. */
  reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
  /** false: the synthesis does not ask for the account of agreement (SPEC §10); absent, it does. */
  agreement: z.literal(false).optional(),
  /** The run this one follows up: each model continues its conversation from it. */
  followUpOf: z.string().optional(),
});
export type RunRequest = z.infer<typeof requestSchema>;
