import { z } from 'zod';
import { RUN_STATUSES } from '../run/record.js';

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
  truncated: z.boolean().describe('The answer stopped at max_tokens'),
  usage: usage.nullable(),
  error: modelError.nullable(),
  file: z.string().nullable().describe('The answer, saved in full'),
  reasoning_file: z.string().nullable(),
  chars: z.number().nullable().describe("The answer's length in characters"),
  answer: z.string().nullable().describe('The answer, when the result shows the candidates (no synthesis yet, or none); cut to the result cap'),
});

const synthesisAttempt = z.object({
  model: z.string(),
  status: z.enum(['answered', 'failed']),
  ms: z.number().nullable(),
  usage: usage.nullable(),
  error: modelError.nullable(),
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
  answer: z.string().nullable().describe('The synthesized answer, cut to the result cap; null when there is none (or when this client reads it from the text content)'),
  answer_chars: z.number().nullable().describe("The synthesized answer's full length"),
  answer_cut: z.boolean().describe('The answer was longer than the result cap; the whole of it is in synthesizer.file'),
  answers_in: z.enum(['both', 'content', 'structured_content']).describe('Where this result carries the answers'),
  run_folder: z.string().nullable().describe('Where every answer and run.json are saved; null when saving is off or failed'),
  joined: z.enum(['new', 'attached', 'resumed']).nullable().describe('attached: the same request was already running or recently done, so nothing was paid twice; resumed: an interrupted run was taken over'),
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
  new_cost: z.number().nullable().describe('What this call added to the bill in US dollars: 0 when it joined a run already paid for; answers reused after a stop are not counted'),
  warnings: z.array(z.string()),
  budget_ms: z.number().nullable().describe("This call's time budget"),
  elapsed_ms: z.number().nullable().describe("The run's time so far"),
};

export type StructuredResult = z.infer<z.ZodObject<typeof outputShape>>;
