import * as z from 'zod';
import { REASONING_EFFORTS, STRATEGIES } from '../config/choices.js';

/**
 * process_prompt's per-call inputs for SPEC §10, to spread into its input schema. Every bad
 * value is refused with a message that names the input and says what it takes, before any
 * upstream request.
 */

/** An enum input whose message says what it takes, for a wrong type and for an unknown value alike. */
function oneOf<T extends readonly [string, ...string[]]>(input: string, values: T) {
  const allowed = values.join(', ');
  return z.enum(values, {
    error: (issue) =>
      typeof issue.input === 'string'
        ? `${input} must be one of ${allowed} (got "${issue.input}")`
        : `${input} must be a string: one of ${allowed}`,
  });
}

export const strategyInputShape = {
  strategy: oneOf('strategy', STRATEGIES)
    .optional()
    .describe(
      'How the answers become one: "synthesize" merges the best parts (best for open, research-style questions); ' +
        '"judge" has the synthesizer pick the best anonymised answer and fix it (best where answers can be checked: code, math, facts); ' +
        '"council" has every model rank the others\' anonymised answers, then merges with the ranking in view (one more round of calls). Default: the server\'s setting.',
    ),
  max_cost_usd: z
    .number({ error: 'max_cost_usd must be a number of US dollars, such as 0.5' })
    .positive('max_cost_usd must be above 0: it is the most, in US dollars, this call may cost at worst')
    .optional()
    .describe(
      'Refuse the call, before any request, if its worst-case cost (OpenRouter prices, max_tokens from every model and step) is above this many US dollars; ' +
        "the refusal gives the estimate per model and what would fit. It can lower the server's own ceiling, never raise it.",
    ),
  reasoning_effort: oneOf('reasoning_effort', REASONING_EFFORTS)
    .optional()
    .describe(
      "How hard reasoning models think, for every model and step (OpenRouter's unified reasoning.effort). Default: the server's setting, else each model's own.",
    ),
  agreement: z
    .boolean({ error: 'agreement must be true or false' })
    .optional()
    .describe(
      'false: leave out the account of where the models agreed and differed (strategies synthesize and council), which the synthesizer otherwise writes after its answer. ' +
        "Default: the server's setting (PARALLEL_LLM_AGREEMENT), on unless turned off.",
    ),
  follow_up_of: z
    .string({ error: 'follow_up_of must be a string: the run_id of a finished run' })
    .trim()
    .min(1, 'follow_up_of must not be blank: give the run_id of a finished run')
    .optional()
    .describe(
      "The run_id of a finished run to follow up: each model gets that run's prompt, its own answer and the final answer as the conversation so far, then this prompt.",
    ),
};
