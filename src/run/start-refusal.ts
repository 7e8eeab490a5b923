import * as z from 'zod';
import { worstCaseSchema } from './record.js';

/** Refused before any upstream request or run folder; declared once for the host's protocol and its clients. */
export const startRefusalSchema = z.discriminatedUnion('kind', [
  /** With what would fit instead, when something would. */
  z.object({
    kind: z.literal('over_ceiling'),
    ceiling_usd: z.number(),
    worst_case: worstCaseSchema,
    fewer_models: z
      .object({
        drop: z.array(z.object({ index: z.number(), model: z.string(), saves_usd: z.number() })),
        keep: z.array(z.string()),
        total_usd: z.number(),
      })
      .optional(),
    lower_max_tokens: z.object({ max_tokens: z.number(), total_usd: z.number() }).optional(),
  }),
  /** No worst case can be promised under the ceiling; worst_case.unpriced says which model and why. */
  z.object({ kind: z.literal('unpriced'), ceiling_usd: z.number(), worst_case: worstCaseSchema }),
  z.object({ kind: z.literal('prices_unavailable'), ceiling_usd: z.number(), message: z.string(), advice: z.string() }),
  /** Team mode: the member's budget cannot hold the worst case (what remains, when it resets), or cannot be reached. */
  z.object({ kind: z.literal('budget'), message: z.string() }),
  /** Team mode: the server is stopping, or the prompt holds the server's key; the message says which. */
  z.object({ kind: z.literal('server'), message: z.string() }),
  /** The run to follow up is unknown, unfinished, or has nothing to follow. */
  z.object({ kind: z.literal('follow_up'), message: z.string() }),
]);
export type StartRefusal = z.infer<typeof startRefusalSchema>;
