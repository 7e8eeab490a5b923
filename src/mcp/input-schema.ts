import * as z from 'zod';
import { API_KEY_SHAPE } from '../config/api-key.js';
import { strategyInputShape } from './strategy-inputs.js';

/** The server's name in `initialize`, broken setup or not. */
export const SERVER_NAME = 'parallel-llm-server';

/** What the calling model reads about the server and its tools. */
export const SERVER_INSTRUCTIONS = `parallel-llm-server asks several LLMs the same question in parallel through OpenRouter, then has a synthesizer model merge their answers into one best answer.
Use process_prompt for hard problems that deserve several opinions: design reviews, tricky bugs, code review, decisions with trade-offs. Do not use it for quick questions: a run takes from tens of seconds to a few minutes and every run costs money (each model is billed; the result reports the cost).
Put the whole problem, with all the context the models need, into one self-contained prompt: the models see nothing else.
A run goes on even when a call returns first, and even when this server stops: if the result's status is "running", call get_run with the arguments its next_call gives (run_id and poll) to wait for the rest (each call waits as long as this client allows). Calling process_prompt again with the same input returns the same run instead of paying again; fresh: true asks anew.
The result's first line says what it holds and what is missing; after a synthesized answer, a few lines (and structuredContent.agreement) say where the models agreed, where they differed and how that was resolved, and what only one raised; the footer names every model's outcome, the cost and the run folder.`;

export const PROCESS_PROMPT_DESCRIPTION =
  'Ask several LLMs the same prompt in parallel and return one synthesized best answer. ' +
  'Slow (tens of seconds to minutes) and paid per run: use it for hard problems, with a self-contained prompt. ' +
  'If the result says "running", call get_run with the arguments it gives for the synthesis; the same input again returns the same run (no double billing). ' +
  'temperature and max_tokens, when given, apply to every candidate model and to the synthesizer.';

export const GET_RUN_DESCRIPTION =
  'Wait for a run started by process_prompt and return its result (the same shape as process_prompt). ' +
  'Use it when process_prompt returned status "running": each call waits as long as the client allows, so call it again, with the run_id and poll the last result gave, while the status stays "running". ' +
  'Works for runs of other server processes sharing the output folder and for runs from before a restart.';

const modelId = z
  .string()
  .trim()
  .min(1, 'a model id must not be blank')
  .refine(
    (id) => !API_KEY_SHAPE.test(id),
    'a model id must not be an API key (this one looks like one, and is not repeated here): the key goes in OPENROUTER_API_KEY, a model id such as openai/gpt-5 here',
  );

/** What one call may set for itself, over the configuration: the tool's arguments beside the prompt, and `ask`'s flags. */
export const callSettingsShape = {
  models: z
    .array(modelId)
    .min(1, 'models must name at least one model')
    .max(20, 'models may name at most 20 models')
    .optional()
    .describe('OpenRouter model ids to ask instead of the configured candidates; a model may repeat.'),
  synthesizer_model: z
    .union([
      modelId,
      z.array(modelId).min(1, 'synthesizer_model must name at least one model').max(5, 'synthesizer_model may name at most 5 models'),
    ])
    .optional()
    .describe('OpenRouter model id that merges the answers, or a list tried in order until one succeeds.'),
  temperature: z
    .number()
    .min(0, 'temperature must be between 0 and 2')
    .max(2, 'temperature must be between 0 and 2')
    .optional()
    .describe('Sampling temperature (0-2) for every model, the synthesizer included.'),
  max_tokens: z
    .number()
    .int('max_tokens must be a whole number')
    .min(1, 'max_tokens must be between 1 and 1000000')
    .max(1_000_000, 'max_tokens must be between 1 and 1000000')
    .optional()
    .describe('Upper limit of tokens per answer, reasoning included, for every model and the synthesizer.'),
  ...strategyInputShape,
  fresh: z
    .boolean()
    .optional()
    .describe('true: ask anew even if the same request ran in the last 10 minutes (that run is otherwise returned, at no cost).'),
};

export function processPromptShape(maxPromptChars: number) {
  return {
    prompt: z
      .string({ error: 'prompt must be a string' })
      .refine((text) => text.trim().length > 0, 'prompt must not be blank')
      .refine(
        (text) => text.length <= maxPromptChars,
        `prompt is longer than the limit of ${maxPromptChars} characters (PARALLEL_LLM_MAX_PROMPT_CHARS)`,
      )
      .describe('The whole problem, self-contained: each model sees only this.'),
    ...callSettingsShape,
  };
}

export const getRunShape = {
  run_id: z
    .string({ error: 'run_id must be a string' })
    .trim()
    .min(1, 'run_id must not be blank')
    .describe('The run_id from a process_prompt result'),
  wait_seconds: z
    .number()
    .min(0)
    .max(3600)
    .optional()
    .describe(
      'How long to wait for the run to finish; never longer than the client allows. 0 returns the run as it stands. Default: as long as allowed.',
    ),
  poll: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      'The poll number the last result gave (its next_call): it keeps consecutive calls apart, as some clients stop a model that repeats a call.',
    ),
};
