import { z } from 'zod';

/** What the calling model reads about the server and its one tool. */
export const SERVER_INSTRUCTIONS = `parallel-llm-server asks several LLMs the same question in parallel through OpenRouter, then has a synthesizer model merge their answers into one best answer.
Use process_prompt for hard problems that deserve several opinions: design reviews, tricky bugs, code review, decisions with trade-offs. Do not use it for quick questions: a call takes from tens of seconds to minutes and every call costs money (each model is billed; the result reports the cost).
Put the whole problem, with all the context the models need, into one self-contained prompt: the models see nothing else.
Per-call overrides: models (OpenRouter model ids, e.g. ["openai/gpt-5-codex","google/gemini-2.5-pro"]), synthesizer_model, temperature (0-2) and max_tokens. Leave them out to use the configured defaults.
The result says which models answered, which failed and why, and which were cut off by the time budget; answers that arrive late are saved in the run folder named in the result.`;

export const TOOL_DESCRIPTION =
  'Ask several LLMs the same prompt in parallel and return one synthesized best answer. ' +
  'Slow (tens of seconds to minutes) and paid per call: use it for hard problems, with a self-contained prompt. ' +
  'The result lists every model with its outcome, latency, tokens and cost, and the folder where all answers are saved.';

const modelId = z.string().trim().min(1, 'a model id must not be blank');

export function inputShape(maxPromptChars: number) {
  return {
    prompt: z
      .string({ error: 'prompt must be a string' })
      .refine((text) => text.trim().length > 0, 'prompt must not be blank')
      .refine((text) => text.length <= maxPromptChars, `prompt is longer than the limit of ${maxPromptChars} characters (PARALLEL_LLM_MAX_PROMPT_CHARS)`)
      .describe('The whole problem, self-contained: each model sees only this.'),
    models: z
      .array(modelId)
      .min(1, 'models must name at least one model')
      .max(20, 'models may name at most 20 models')
      .optional()
      .describe('OpenRouter model ids to ask instead of the configured candidates; a model may repeat.'),
    synthesizer_model: modelId.optional().describe('OpenRouter model id that merges the answers.'),
    temperature: z.number().min(0).max(2).optional().describe('Sampling temperature for every model (0-2).'),
    max_tokens: z.number().int().min(1).max(1_000_000).optional().describe('Upper limit of tokens per answer, reasoning included.'),
  };
}

const usage = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  reasoning_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
  cost: z.number().optional().describe('US dollars, as OpenRouter reports it'),
});

const modelError = z.object({
  kind: z.string(),
  message: z.string(),
  status: z.number().optional(),
  code: z.string().optional(),
  retry_after_ms: z.number().optional(),
  advice: z.string().optional(),
});

export const outputShape = {
  status: z.enum(['complete', 'partial', 'candidates_only', 'failed', 'cancelled']),
  answer: z.string().nullable().describe('The synthesized answer; null when synthesis did not succeed'),
  run_folder: z.string().nullable().describe('Where every answer and run.json are saved; null when saving is off or failed'),
  models: z.array(
    z.object({
      index: z.number(),
      model: z.string(),
      status: z.enum(['answered', 'failed', 'cut_off']),
      ms: z.number().optional(),
      attempts: z.number().optional(),
      truncated: z.boolean().optional(),
      usage: usage.optional(),
      error: modelError.optional(),
      file: z.string().optional(),
    }),
  ),
  synthesizer: z.object({
    model: z.string(),
    status: z.enum(['answered', 'failed', 'skipped']),
    ms: z.number().optional(),
    usage: usage.optional(),
    error: modelError.optional(),
    prompt_chars: z.number().optional(),
    trimmed: z.array(z.object({ model: z.string(), kept_chars: z.number(), original_chars: z.number() })),
    file: z.string().optional(),
  }),
  totals: usage,
  cut_off_models: z.array(z.string()).describe('Models the time budget cut off; their answers are saved when they arrive'),
  warnings: z.array(z.string()),
  budget_ms: z.number(),
  elapsed_ms: z.number(),
};

export type StructuredResult = z.infer<z.ZodObject<typeof outputShape>>;
