import * as z from 'zod';
import { REASONING_EFFORTS, STRATEGIES } from '../config/choices.js';
import { agreementSchema } from '../prompts/agreement/account.js';
import { RUN_STATUSES } from './status.js';

export { RUN_STATUSES, STATUS, type RunStatus } from './status.js';

/*
 * What run.json holds and the host sends: types are inferred from the schema, so a record read back
 * is checked against exactly what is written. A field a later version adds is dropped, not refused.
 */

/** The usage of one step, as OpenRouter reports it. */
const usageSchema = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
  /** In credits (US dollars), as OpenRouter reports it. */
  cost: z.number().optional(),
});

const modelErrorSchema = z.object({
  kind: z.string(),
  message: z.string(),
  status: z.number().optional(),
  code: z.string().optional(),
  retry_after_ms: z.number().optional(),
  /** What the user can do about it. */
  advice: z.string().optional(),
});
export type ModelError = z.infer<typeof modelErrorSchema>;

const verdictSchema = z.object({
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

const councilSchema = z.object({
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

const costSchema = z.object({
  /** The lower of max_cost_usd and PARALLEL_LLM_MAX_COST_USD. */
  ceiling_usd: z.number().optional(),
  /** Absent when no prices were at hand (and no ceiling asked for them). */
  worst_case: worstCaseSchema.optional(),
});
export type CostRecord = z.infer<typeof costSchema>;

const candidateBase = {
  /** 1-based, in the order of the request's models. */
  index: z.number(),
  model: z.string(),
  reasoning_file: z.string().optional(),
};

const candidateSchema = z.discriminatedUnion('status', [
  z.object({ ...candidateBase, status: z.literal('waiting') }),
  z.object({
    ...candidateBase,
    status: z.literal('answered'),
    /** Unknown for an answer recovered from disk after a crash. */
    ms: z.number().optional(),
    attempts: z.number().optional(),
    chars: z.number(),
    /** Found on disk after the process that asked was killed before noting it. */
    recovered: z.literal(true).optional(),
    /** Answered before the run was stopped, and kept when it was taken over: paid once, then. */
    reused: z.literal(true).optional(),
    truncated: z.boolean().optional(),
    /** Why it was cut before its end by us: it ran past the stored-answer cap. */
    cut_short: z.string().optional(),
    usage: usageSchema.optional(),
    /** The answer's file in the run folder: named once the file is there, never before. */
    file: z.string().optional(),
  }),
  z.object({
    ...candidateBase,
    status: z.literal('failed'),
    ms: z.number().optional(),
    error: modelErrorSchema,
    /** It sent reasoning but no answer (and was not cut short), and the synthesizer was given that reasoning. */
    reasoning_to_synthesis: z.literal(true).optional(),
  }),
]);
export type CandidateRecord = z.infer<typeof candidateSchema>;

const attemptSchema = z.discriminatedUnion('status', [
  z.object({ model: z.string(), status: z.literal('answered'), ms: z.number(), chars: z.number(), usage: usageSchema.optional() }),
  z.object({ model: z.string(), status: z.literal('failed'), ms: z.number().optional(), error: modelErrorSchema }),
]);
export type SynthesisAttempt = z.infer<typeof attemptSchema>;

const trimmedSchema = z.object({ model: z.string(), kept_chars: z.number(), original_chars: z.number() });

const synthesisSchema = z.object({
  status: z.enum(['waiting', 'running', 'answered', 'failed', 'skipped']),
  model: z.string().optional(),
  attempts: z.array(attemptSchema),
  reason: z.string().optional(),
  prompt_chars: z.number().optional(),
  trimmed: z.array(trimmedSchema).optional(),
  /** final.md, once it is on disk. */
  file: z.string().optional(),
  verdict: verdictSchema.optional(),
  /** Null when it was asked for and not given cleanly. */
  agreement: agreementSchema.nullable().optional(),
});

const ownerSchema = z.object({
  pid: z.number(),
  host: z.string(),
  /** Random per process, since a pid can be reused (pid 1 in every container). */
  instance: z.string(),
  /** On Linux: the process's start time (field 22 of /proc/<pid>/stat), the boot and the PID namespace it ran in. */
  start_time: z.number().optional(),
  boot_id: z.string().optional(),
  pid_ns: z.string().optional(),
  /** The package version that ran it: another version never takes it over. */
  version: z.string().optional(),
});
export type Owner = z.infer<typeof ownerSchema>;

export const recordSchema = z.object({
  format: z.literal(1),
  run_id: z.string(),
  request_key: z.string(),
  status: z.enum(RUN_STATUSES),
  owner: ownerSchema,
  started_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().optional(),
  elapsed_ms: z.number().optional(),
  /** How many times a process took the run over after it was interrupted or stopped. */
  resumes: z.number(),
  settings: z.object({
    models: z.array(z.string()),
    synthesizer_models: z.array(z.string()),
    temperature: z.number(),
    max_tokens: z.number(),
    /** Absent in runs from before strategies: synthesize. */
    strategy: z.enum(STRATEGIES).optional(),
    reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
    /** false: the synthesis was not asked for the account of agreement. */
    agreement: z.literal(false).optional(),
  }),
  follow_up_of: z.string().optional(),
  cost: costSchema.optional(),
  /** The prompt, with the key redacted. */
  prompt: z.string(),
  candidates: z.array(candidateSchema),
  synthesis: synthesisSchema,
  council: councilSchema.optional(),
  totals: usageSchema,
  warnings: z.array(z.string()),
});
export type RunRecord = z.infer<typeof recordSchema>;

/** Without the prompt, which can be megabytes and no client shows. */
export const stateSchema = recordSchema.omit({ prompt: true }).extend({ title: z.string() });
export type RunState = z.infer<typeof stateSchema>;

export function stateOf(record: Readonly<RunRecord>): RunState {
  const { prompt, ...state } = record;
  return { ...state, title: titleOf(prompt) };
}

function titleOf(prompt: string): string {
  const firstLine = prompt.trim().split('\n', 1)[0]!;
  return firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine;
}
