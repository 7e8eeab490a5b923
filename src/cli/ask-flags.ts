import { z } from 'zod';
import { strategyInputShape, type StrategyArgs } from '../mcp/strategy-inputs.js';
import { err, ok, type Result } from '../result.js';

/** ask's flags for process_prompt's strategy inputs (SPEC §10), each checked by the tool's own rules. */
const STRATEGY_FLAGS = [
  { option: 'strategy', input: 'strategy', read: (text: string): unknown => text },
  { option: 'max-cost', input: 'max_cost_usd', read: (text: string): unknown => (text.trim() === '' ? Number.NaN : Number(text)) },
  { option: 'reasoning-effort', input: 'reasoning_effort', read: (text: string): unknown => text },
  { option: 'follow-up-of', input: 'follow_up_of', read: (text: string): unknown => text },
] as const;

const inputsSchema = z.object(strategyInputShape);

/**
 * Takes the strategy flags (`--strategy judge` or `--strategy=judge`) out of ask's arguments,
 * up to a `--`, and checks their values as process_prompt checks its inputs: the other
 * arguments, and the inputs; or one line naming the first bad flag.
 */
export function takeStrategyFlags(args: readonly string[]): Result<{ rest: string[]; inputs: StrategyArgs }, string> {
  const rest: string[] = [];
  const values: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i));
      break;
    }
    const [name, inline] = arg.startsWith('--') ? splitOnce(arg.slice(2), '=') : [undefined, undefined];
    const flag = STRATEGY_FLAGS.find((candidate) => candidate.option === name);
    if (!flag) {
      rest.push(arg);
      continue;
    }
    const value = inline ?? args[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith('-'))) return err(`--${flag.option} needs a value`);
    if (inline === undefined) i++;
    values[flag.input] = flag.read(value);
  }
  const parsed = inputsSchema.safeParse(values);
  if (parsed.success) return ok({ rest, inputs: parsed.data });
  const issue = parsed.error.issues[0]!;
  const flag = STRATEGY_FLAGS.find((candidate) => candidate.input === issue.path[0])!;
  // The tool's message names its input first ("max_cost_usd must be ..."): name the flag instead.
  return err(`--${flag.option}${issue.message.startsWith(flag.input) ? issue.message.slice(flag.input.length) : `: ${issue.message}`}`);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
