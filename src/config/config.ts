import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { API_KEY_SHAPE } from './api-key.js';
import { absoluteDir, blankToUndefined, booleanFlag, duration, integer, modelList, oneOf } from './values.js';

export { MAX_TIMER_MS } from './values.js';
import { REASONING_EFFORTS, type ReasoningEffort, STRATEGIES, type Strategy } from './choices.js';

/**
 * The original's vendors and roles (SPEC §2) on ids that do not rot: OpenRouter's `~vendor/...-latest`
 * aliases follow each family's newest model. Mistral has no alias; Medium 3.5 is Mistral's named
 * successor to its Devstral coding models. IMPROVEMENTS.md lists the original's ids and why each changed.
 */
const DEFAULT_MODELS = [
  '~openai/gpt-latest',
  '~x-ai/grok-latest',
  'mistralai/mistral-medium-3-5',
  '~google/gemini-pro-latest',
  '~z-ai/glm-latest',
];
/** Tried in order: the next one synthesizes when one fails. Claude is a vendor no candidate uses. */
const DEFAULT_SYNTHESIZERS = ['~google/gemini-pro-latest', '~anthropic/claude-sonnet-latest'];
const DEFAULT_BASE_URL = 'https://openrouter.ai/api/v1';
/** Reasoning models spend thousands of tokens thinking before they answer. */
const DEFAULT_MAX_TOKENS = 16_384;
/** ~150k tokens: inside both default synthesizers' context windows and below Gemini Pro's 200k-token price step. */
export const DEFAULT_SYNTHESIS_MAX_CHARS = 600_000;

export interface Config {
  apiKey: string;
  baseUrl: string;
  models: string[];
  /** Tried in order until one synthesizes. */
  synthesizerModels: string[];
  maxConcurrency: number;
  timeoutMs: number;
  idleTimeoutMs: number;
  maxRetries: number;
  temperature: number;
  maxTokens: number;
  /** Undefined: chosen from the client's name at `initialize`. */
  budgetMs: number | undefined;
  synthesisMaxChars: number;
  maxPromptChars: number;
  /** The most answer text one tool result carries; the rest is in the run folder. */
  maxAnswerChars: number;
  outputDir: string;
  saveOutputs: boolean;
  logLevel: LogLevel;
  logFile: string | undefined;
  /** How the candidates' answers become one, unless a call says otherwise (SPEC §10). */
  strategy: Strategy;
  /** A call whose worst-case cost is above this is refused before any request; a call may lower it, never raise it. */
  maxCostUsd: number | undefined;
  /** OpenRouter's `reasoning.effort` for every model and step; undefined: not sent. */
  reasoningEffort: ReasoningEffort | undefined;
  /** Whether a synthesis also asks for the account of where the models agreed and differed (SPEC §10), unless a call says otherwise. */
  agreement: boolean;
  /** `auto`: runs execute in the per-user run host; `off`: in the server process itself. */
  runHost: 'auto' | 'off';
  /** Where the run host's socket, lock and log live; undefined: the per-user runtime folder. */
  hostDir: string | undefined;
  /** The run host exits after this long with no run and no client connected. */
  hostIdleMs: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration problem, phrased for one line on stderr. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * The MCP SDK's stdio transport refuses lines over 10 MiB, and JSON can take up to six bytes
 * for one character (\u0001); a result may carry its answers twice (text and structured): so
 * 2 × 750,000 × 6 bytes, 9 MB, stays below it.
 */
const MAX_ANSWER_CHARS = 750_000;
/** Room the synthesis prompt needs beyond the problem itself, for the frame and the answers. */
const SYNTHESIS_ROOM_CHARS = 20_000;
const DEFAULT_MAX_PROMPT_CHARS = 500_000;
/**
 * The longest prompt accepted. A prompt of N characters takes up to 6N bytes in a JSON-RPC
 * line (`\u0001` for a control character, and for every non-ASCII character from clients that
 * escape them, as Python's json.dumps does), and it travels in one line from the client and
 * again to the run host. It is kept within the 10 MiB line the MCP SDKs' own stdio transports
 * take (STDIO_DEFAULT_MAX_BUFFER_SIZE; this server's transport takes 16 MiB), so that any
 * MCP process on the way carries it: (10 MiB - 64 KiB read - 64 KiB for the rest) / 6, rounded down.
 */
export const MAX_PROMPT_CHARS_CEILING = 1_700_000;

const envSchema = z.object({
  OPENROUTER_API_KEY: z.preprocess(
    (value) => (typeof value === 'string' ? blankToUndefined(value.trim()) : value),
    z
      .string({ error: 'is not set: get a key at https://openrouter.ai/keys' })
      // A key pasted with a space or line break inside cannot be sent as a header.
      .regex(/^[\x21-\x7e]+$/, { error: 'contains spaces or control characters: paste the key again' }),
  ),
  OPENROUTER_BASE_URL: z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, ''))
      .optional(),
  ),
  PARALLEL_LLM_MODELS: modelList,
  PARALLEL_LLM_SYNTHESIZER_MODEL: modelList,
  PARALLEL_LLM_MAX_CONCURRENCY: integer(1),
  PARALLEL_LLM_TIMEOUT_MS: duration(),
  PARALLEL_LLM_IDLE_TIMEOUT_MS: duration(),
  PARALLEL_LLM_MAX_RETRIES: integer(0),
  PARALLEL_LLM_TEMPERATURE: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .min(0, { error: 'must be between 0 and 2' })
      .max(2, { error: 'must be between 0 and 2' })
      .optional(),
  ),
  PARALLEL_LLM_MAX_TOKENS: integer(1),
  PARALLEL_LLM_BUDGET_MS: duration(),
  PARALLEL_LLM_SYNTHESIS_MAX_CHARS: integer(SYNTHESIS_ROOM_CHARS + 1),
  PARALLEL_LLM_MAX_PROMPT_CHARS: integer(
    1,
    MAX_PROMPT_CHARS_CEILING,
    ': a longer prompt does not fit in one message of an MCP stdio transport (10 MiB)',
  ),
  PARALLEL_LLM_MAX_ANSWER_CHARS: integer(1000, MAX_ANSWER_CHARS),
  PARALLEL_LLM_OUTPUT_DIR: absoluteDir,
  PARALLEL_LLM_SAVE_OUTPUTS: booleanFlag,
  PARALLEL_LLM_LOG_LEVEL: oneOf(LOG_LEVELS),
  PARALLEL_LLM_LOG_FILE: z.preprocess(blankToUndefined, z.string().optional()),
  PARALLEL_LLM_STRATEGY: oneOf(STRATEGIES),
  PARALLEL_LLM_MAX_COST_USD: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number of US dollars, such as 0.50' })
      .positive({ error: 'must be a positive number of US dollars, such as 0.50' })
      .optional(),
  ),
  PARALLEL_LLM_REASONING_EFFORT: oneOf(REASONING_EFFORTS),
  PARALLEL_LLM_AGREEMENT: oneOf(['on', 'off'] as const),
  PARALLEL_LLM_RUN_HOST: oneOf(['auto', 'off'] as const),
  PARALLEL_LLM_HOST_DIR: absoluteDir,
  PARALLEL_LLM_HOST_IDLE_MS: duration(),
});

/** Reads the configuration once, at start. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    // Never the key, even one set where something else belongs.
    const value = env[variable];
    const shown = value === undefined || variable === 'OPENROUTER_API_KEY' || API_KEY_SHAPE.test(value) ? '' : ` (got "${value}")`;
    throw new ConfigError(`${variable} ${issue.message}${shown}`);
  }
  const e = parsed.data;
  const timeoutMs = e.PARALLEL_LLM_TIMEOUT_MS ?? 240_000;
  const synthesisMaxChars = e.PARALLEL_LLM_SYNTHESIS_MAX_CHARS ?? DEFAULT_SYNTHESIS_MAX_CHARS;
  // Set alone, a smaller synthesis bound lowers the prompt limit with it; only two settings that disagree are refused.
  const maxPromptChars = e.PARALLEL_LLM_MAX_PROMPT_CHARS ?? Math.min(DEFAULT_MAX_PROMPT_CHARS, synthesisMaxChars - SYNTHESIS_ROOM_CHARS);
  if (synthesisMaxChars < maxPromptChars + SYNTHESIS_ROOM_CHARS) {
    throw new ConfigError(
      `PARALLEL_LLM_SYNTHESIS_MAX_CHARS (${synthesisMaxChars}) must exceed PARALLEL_LLM_MAX_PROMPT_CHARS (${maxPromptChars}) by at least ${SYNTHESIS_ROOM_CHARS}, to leave room for the answers; lower PARALLEL_LLM_MAX_PROMPT_CHARS or raise PARALLEL_LLM_SYNTHESIS_MAX_CHARS`,
    );
  }
  return {
    apiKey: e.OPENROUTER_API_KEY,
    baseUrl: e.OPENROUTER_BASE_URL ?? DEFAULT_BASE_URL,
    models: e.PARALLEL_LLM_MODELS ?? [...DEFAULT_MODELS],
    synthesizerModels: e.PARALLEL_LLM_SYNTHESIZER_MODEL ?? [...DEFAULT_SYNTHESIZERS],
    maxConcurrency: e.PARALLEL_LLM_MAX_CONCURRENCY ?? 5,
    timeoutMs,
    idleTimeoutMs: e.PARALLEL_LLM_IDLE_TIMEOUT_MS ?? Math.min(90_000, timeoutMs),
    maxRetries: e.PARALLEL_LLM_MAX_RETRIES ?? 2,
    temperature: e.PARALLEL_LLM_TEMPERATURE ?? 0.7,
    maxTokens: e.PARALLEL_LLM_MAX_TOKENS ?? DEFAULT_MAX_TOKENS,
    budgetMs: e.PARALLEL_LLM_BUDGET_MS,
    synthesisMaxChars,
    maxPromptChars,
    maxAnswerChars: e.PARALLEL_LLM_MAX_ANSWER_CHARS ?? 100_000,
    outputDir: e.PARALLEL_LLM_OUTPUT_DIR ?? defaultOutputDir(env),
    saveOutputs: e.PARALLEL_LLM_SAVE_OUTPUTS ?? true,
    logLevel: e.PARALLEL_LLM_LOG_LEVEL ?? 'info',
    logFile: e.PARALLEL_LLM_LOG_FILE,
    strategy: e.PARALLEL_LLM_STRATEGY ?? 'synthesize',
    maxCostUsd: e.PARALLEL_LLM_MAX_COST_USD,
    reasoningEffort: e.PARALLEL_LLM_REASONING_EFFORT,
    agreement: e.PARALLEL_LLM_AGREEMENT !== 'off',
    runHost: e.PARALLEL_LLM_RUN_HOST ?? 'auto',
    hostDir: e.PARALLEL_LLM_HOST_DIR,
    hostIdleMs: e.PARALLEL_LLM_HOST_IDLE_MS ?? 10 * 60 * 1000,
  };
}

/** The per-user data folder: clients often start servers in `/`, so never the working directory. */
export function defaultOutputDir(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  const base =
    platform === 'win32'
      ? (absolute(env.LOCALAPPDATA, path.win32) ?? path.win32.join(home, 'AppData', 'Local'))
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (absolute(env.XDG_DATA_HOME, path.posix) ?? path.join(home, '.local', 'share'));
  return (platform === 'win32' ? path.win32 : path).join(base, 'parallel-llm-mcp', 'runs');
}

/** An empty or relative folder variable is ignored, as the XDG spec says: it would depend on the working directory. */
function absolute(value: string | undefined, flavour: path.PlatformPath): string | undefined {
  return value && flavour.isAbsolute(value) ? value : undefined;
}
