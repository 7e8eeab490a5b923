import * as z from 'zod';
import { callSettingsShape } from '../mcp/input-schema.js';
import { err, ok, type Result } from '../result.js';
import type { CallSettings } from '../mcp/run-request.js';
import type { OptionTypes, OptionValues } from './command-line.js';

export interface AskOptions {
  /** Over the configuration, for this run only, as the tool's arguments would set them. */
  settings: CallSettings;
  /** Ask anew even if the same request ran in the last 10 minutes. */
  fresh: boolean;
  /** The structured result (the tool's structuredContent) on stdout instead of the answer. */
  json: boolean;
}

const idList = (text: string) =>
  text
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
const asWritten = (text: string) => text;

/** The flags that take a value: each sets one of process_prompt's arguments. */
const SETTING_FLAGS = [
  { option: 'models', setting: 'models', read: idList },
  { option: 'synthesizer', setting: 'synthesizer_model', read: idList },
  { option: 'temperature', setting: 'temperature', read: Number },
  { option: 'max-tokens', setting: 'max_tokens', read: Number },
  { option: 'strategy', setting: 'strategy', read: asWritten },
  { option: 'max-cost', setting: 'max_cost_usd', read: Number },
  { option: 'reasoning-effort', setting: 'reasoning_effort', read: asWritten },
  { option: 'follow-up-of', setting: 'follow_up_of', read: asWritten },
] as const;

/** ask's flags: one for each per-call setting process_prompt takes, and --json. */
export const ASK_OPTIONS: OptionTypes = {
  ...Object.fromEntries(SETTING_FLAGS.map(({ option }) => [option, 'string'])),
  fresh: 'boolean',
  json: 'boolean',
  'no-agreement': 'boolean',
};

/** The tool's own rules for its settings, so that ask and process_prompt accept the same values. */
const settingsSchema = z.object(callSettingsShape).omit({ fresh: true });

/** The typed options from ask's flags, or a one-line message naming the first bad flag and its value. */
export function askOptions(values: OptionValues): Result<AskOptions, string> {
  const settings: Record<string, unknown> = {};
  for (const { option, setting, read } of SETTING_FLAGS) {
    const text = values[option];
    if (typeof text !== 'string') continue;
    const value = read(text);
    if (typeof value === 'number' && !Number.isFinite(value)) return err(`--${option} must be a number (got "${text}")`);
    settings[setting] = value;
  }
  const parsed = settingsSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const { option } = SETTING_FLAGS.find(({ setting }) => setting === issue.path[0])!;
    return err(`--${option} "${values[option]}": ${ruleBroken(issue)}`);
  }
  const agreement = values['no-agreement'] === true ? { agreement: false } : {};
  return ok({ settings: { ...parsed.data, ...agreement }, fresh: values.fresh === true, json: values.json === true });
}

/** The rule an issue names; of a union (one id, or a list), the branch that had the right type. */
function ruleBroken(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union') return issue.message;
  return issue.errors.flat().find((inner) => inner.code !== 'invalid_type')?.message ?? issue.message;
}
