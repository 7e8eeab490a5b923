import * as z from 'zod';
import { REASONING_EFFORTS, STRATEGIES } from '../config/choices.js';
import { RUN_STATUSES } from '../run/status.js';

/**
 * What `process_prompt` and `get_run` return as structuredContent. Every field is always
 * present (null when it does not apply), so strict validators and typed clients see one shape.
 */
const usage = z.object({
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  reasoning_tokens: z.number().nullable(),
  total_tokens: z.number().nullable(),
  cost: z.number().nullable().describe('US dollars, as OpenRouter reports it'),
});

const modelError = z.object({
  kind: z.string().describe('http, rate_limited, timeout, network, bad_body, provider, empty, truncated or cancelled'),
  message: z.string().describe("The upstream's own message"),
  status: z.number().nullable(),
  code: z.string().nullable(),
  retry_after_ms: z.number().nullable(),
  advice: z.string().nullable().describe('What to do about it'),
});

const model = z.object({
  index: z.number(),
  model: z.string(),
  status: z.enum(['answered', 'failed', 'running', 'interrupted']),
  ms: z.number().nullable(),
  attempts: z.number().nullable(),
  truncated: z.boolean().describe('The answer stopped before its end: at max_tokens, or at the stored-answer cap (cut_short says so)'),
  cut_short: z.string().nullable().describe('Why the answer was stopped at the stored-answer cap, when it was'),
  usage: usage.nullable(),
  error: modelError.nullable(),
  file: z.string().nullable().describe('The answer, saved in full'),
  reasoning_file: z.string().nullable(),
  chars: z.number().nullable().describe("The answer's length in characters"),
  answer: z
    .string()
    .nullable()
    .describe('The answer, when the result shows the candidates (no synthesis yet, or none); cut to the result cap'),
});

const synthesisAttempt = z.object({
  model: z.string(),
  status: z.enum(['answered', 'failed']),
  ms: z.number().nullable(),
  usage: usage.nullable(),
  error: modelError.nullable(),
});

const judge = z.object({
  chosen_index: z
    .number()
    .nullable()
    .describe('The chosen candidate (1-based, as in models); null when the judge named none and its whole reply is the answer'),
  chosen_model: z.string().nullable(),
  reason: z.string().nullable().describe("The judge's reason for its choice, and what it fixed"),
  warnings: z.array(z.string()).describe('What could not be read in its reply'),
  reply_file: z.string().nullable().describe("The judge's whole reply"),
});

const ranking = z.object({
  ranker_index: z.number().describe('The ranking candidate (1-based, as in models)'),
  ranker_model: z.string(),
  status: z.enum(['answered', 'failed']),
  ranking: z
    .array(z.object({ index: z.number(), model: z.string() }))
    .describe("The others' answers as it ranked them, best first (it saw them anonymised)"),
  warnings: z.array(z.string()),
  usage: usage.nullable(),
  error: modelError.nullable(),
  file: z.string().nullable().describe('Its whole reply'),
});

const combined = z.object({
  index: z.number(),
  model: z.string(),
  score: z.number().describe('1: ranked first by every reviewer; 0: last by every one'),
  rankers: z.number(),
  firsts: z.number(),
});

const council = z.object({
  rankings: z.array(ranking).describe("Each council member's ranking of the others' answers"),
  combined: z.array(combined).describe('The combined ranking the synthesizer saw, best first'),
  note: z.string().nullable().describe('Why the synthesizer merged without a ranking, when it did'),
});

const agreement = z.object({
  consensus: z.array(z.string()).describe('Points the candidates agreed on'),
  disagreements: z
    .array(
      z.object({
        point: z.string(),
        positions: z.array(z.object({ models: z.array(z.string()).describe('Model ids'), view: z.string() })),
        resolution: z.string().describe('How the synthesis resolved it'),
      }),
    )
    .describe('Where the candidates contradicted each other: who said what, and how the synthesis resolved it'),
  unique: z
    .array(z.object({ model: z.string(), point: z.string(), kept: z.boolean().describe('The synthesis kept the point') }))
    .describe('Points only one model raised'),
});

const worstCase = z.object({
  total_usd: z
    .number()
    .describe('The most the run could cost: every model and step answering with all of max_tokens, at OpenRouter’s listed prices'),
  per_model: z.array(z.object({ model: z.string(), usd: z.number(), steps: z.number() })),
  unpriced: z.array(z.object({ model: z.string(), reason: z.string() })).describe('Models left out of the total for want of a price'),
  prices_fetched_at: z.string(),
  prices_age_ms: z.number(),
  refresh_failed: z.string().nullable(),
});

export const outputShape = {
  run_id: z.string().describe('Pass it to get_run to wait for or re-read this run'),
  status: z.enum(RUN_STATUSES),
  summary: z.string().describe('One plain line: what the result holds and what is missing'),
  next_step: z.string().nullable().describe('What the caller should do next, when the run is not finished'),
  next_call: z
    .object({ tool: z.literal('get_run'), arguments: z.object({ run_id: z.string(), poll: z.number() }) })
    .nullable()
    .describe('While the run goes on: the call to make next, exactly (its poll number keeps consecutive calls apart)'),
  answer: z
    .string()
    .nullable()
    .describe(
      'The synthesized answer, cut to the result cap; null when there is none (or when this client reads it from the text content)',
    ),
  answer_chars: z.number().nullable().describe("The synthesized answer's full length"),
  answer_cut: z.boolean().describe('The answer was longer than the result cap; the whole of it is in synthesizer.file'),
  answers_in: z.enum(['both', 'content', 'structured_content']).describe('Where this result carries the answers'),
  run_folder: z.string().nullable().describe('Where every answer and run.json are saved; null when saving is off or failed'),
  strategy: z.enum(STRATEGIES).describe('How the answers became one: synthesize, judge or council'),
  reasoning_effort: z
    .enum(REASONING_EFFORTS)
    .nullable()
    .describe('The reasoning effort every model and step was asked for; null: each model’s own'),
  follow_up_of: z.string().nullable().describe('The run this one follows up'),
  judge: judge.nullable().describe('Strategy judge: whose answer the judge chose, and why'),
  council: council.nullable().describe('Strategy council: how the models ranked each other'),
  agreement: agreement
    .nullable()
    .describe(
      "Strategies synthesize and council: the synthesizer's account of where the models agreed and differed, by model id; null when it gave none that could be read (a warning says so), for judge, or when turned off",
    ),
  cost_ceiling_usd: z.number().nullable().describe('The cost ceiling this run was admitted under'),
  worst_case: worstCase.nullable().describe('The worst-case cost estimated before the run; null when no prices were at hand'),
  joined: z
    .enum(['new', 'attached', 'resumed'])
    .nullable()
    .describe(
      'attached: the same request was already running or recently done, so nothing was paid twice; resumed: an interrupted run was taken over',
    ),
  models: z.array(model),
  synthesizer: z.object({
    status: z.enum(['waiting', 'running', 'answered', 'failed', 'skipped']),
    model: z.string().nullable().describe('Who synthesized, or is synthesizing'),
    attempts: z.array(synthesisAttempt).describe('Every synthesizer tried, in order'),
    reason: z.string().nullable().describe('Why synthesis did not run'),
    prompt_chars: z.number().nullable(),
    trimmed: z.array(z.object({ model: z.string(), kept_chars: z.number(), original_chars: z.number() })),
    file: z.string().nullable(),
  }),
  still_running: z.array(z.string()).describe('Models still being asked'),
  totals: usage,
  new_cost: z
    .number()
    .nullable()
    .describe(
      'What this call added to the bill in US dollars: 0 when it joined a run already paid for; answers reused after a stop are not counted',
    ),
  warnings: z.array(z.string()),
  budget_ms: z.number().nullable().describe("This call's time budget"),
  elapsed_ms: z.number().nullable().describe("The run's time so far"),
};

export type StructuredResult = z.infer<z.ZodObject<typeof outputShape>>;
