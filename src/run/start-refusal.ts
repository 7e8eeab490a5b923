import { z } from 'zod';
import { worstCaseSchema } from './record.js';

/**
 * Why a call started no run: refused before any upstream request, with no run folder made.
 * Declared once for the run host's protocol and for the faces, which put it into words.
 */
export const startRefusalSchema = z.discriminatedUnion('kind', [
  /** The worst case is above the ceiling; what would fit instead, when something would. */
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
  /** Some model has no price, so no worst case can be promised under the ceiling (worst_case.unpriced says which and why). */
  z.object({ kind: z.literal('unpriced'), ceiling_usd: z.number(), worst_case: worstCaseSchema }),
  /** A ceiling was asked for, and no prices could be read to check it. */
  z.object({ kind: z.literal('prices_unavailable'), ceiling_usd: z.number(), message: z.string(), advice: z.string() }),
  /** The run to follow up is unknown, unfinished, or has nothing to follow. */
  z.object({ kind: z.literal('follow_up'), message: z.string() }),
]);
export type StartRefusal = z.infer<typeof startRefusalSchema>;
