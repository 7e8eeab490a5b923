import * as z from 'zod';

/** The parts of run.json (declared in record.ts) that the strategies and the cost ceiling (SPEC §10) add, and what they share with it. */
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

export const verdictSchema = z.object({
  /** 1-based; absent when the reply named none, and the whole reply is the answer. */
  choice_index: z.number().optional(),
  choice_model: z.string().optional(),
  reason: z.string().optional(),
  warnings: z.array(z.string()),
  reply_file: z.string().optional(),
});
export type VerdictRecord = z.infer<typeof verdictSchema>;

/** In 1-based candidate indices. */
const rankerSchema = z.discriminatedUnion('status', [
  z.object({
    index: z.number(),
    model: z.string(),
    status: z.literal('answered'),
    ms: z.number().optional(),
    usage: usageSchema.optional(),
    /** The candidates it was shown (never itself), and its order of them, best first; empty when none could be read. */
    shown: z.array(z.number()),
    order: z.array(z.number()),
    warnings: z.array(z.string()),
    file: z.string().optional(),
    /** Ranked before the run was stopped, and kept when it was taken over: paid once, then. */
    reused: z.literal(true).optional(),
  }),
  z.object({ index: z.number(), model: z.string(), status: z.literal('failed'), ms: z.number().optional(), error: modelErrorSchema }),
]);
export type RankerRecord = z.infer<typeof rankerSchema>;
export type AnsweredRanker = Extract<RankerRecord, { status: 'answered' }>;

const aggregateSchema = z.object({ index: z.number(), model: z.string(), score: z.number(), rankers: z.number(), firsts: z.number() });
export type AggregateRecord = z.infer<typeof aggregateSchema>;

export const councilSchema = z.object({
  rankings: z.array(rankerSchema),
  aggregate: z.array(aggregateSchema).optional(),
  /** Why the synthesizer merged without a ranking: too few answers, or none could be read. */
  note: z.string().optional(),
});
export type CouncilRecord = z.infer<typeof councilSchema>;

export const worstCaseSchema = z.object({
  /** Of the priced models: a lower bound while `unpriced` is not empty. */
  total_usd: z.number(),
  per_model: z.array(z.object({ model: z.string(), usd: z.number(), steps: z.number() })),
  unpriced: z.array(z.object({ model: z.string(), reason: z.string() })),
  prices_fetched_at: z.string(),
  prices_age_ms: z.number(),
  refresh_failed: z.string().optional(),
});
export type WorstCaseRecord = z.infer<typeof worstCaseSchema>;

export const costSchema = z.object({
  /** The lower of max_cost_usd and PARALLEL_LLM_MAX_COST_USD. */
  ceiling_usd: z.number().optional(),
  /** Absent when no prices were at hand (and no ceiling asked for them). */
  worst_case: worstCaseSchema.optional(),
});
export type CostRecord = z.infer<typeof costSchema>;
