import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strategyInputShape } from '../src/mcp/strategy-inputs.js';
import { effectiveCeiling } from '../src/mcp/run-request.js';

const schema = z.object(strategyInputShape);

/** The one message the schema gives for `input`, failing the test when it accepts it. */
function refusal(input: Record<string, unknown>): string {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  expect(parsed.error.issues).toHaveLength(1);
  return parsed.error.issues[0]!.message;
}

describe('strategyInputShape: accepted inputs', () => {
  it('takes each strategy, a positive ceiling, each effort and a run id (trimmed), all optional', () => {
    expect(schema.parse({})).toEqual({});
    expect(
      schema.parse({
        strategy: 'council',
        max_cost_usd: 0.25,
        reasoning_effort: 'minimal',
        follow_up_of: ' 2026-11-24T10-00-00.000Z_ab12cd34 ',
      }),
    ).toEqual({
      strategy: 'council',
      max_cost_usd: 0.25,
      reasoning_effort: 'minimal',
      follow_up_of: '2026-11-24T10-00-00.000Z_ab12cd34',
    });
    for (const strategy of ['synthesize', 'judge', 'council']) expect(schema.parse({ strategy }).strategy).toBe(strategy);
  });

  it('describes every input for the calling model', () => {
    for (const input of Object.values(strategyInputShape)) expect(input.description?.length).toBeGreaterThan(40);
  });
});

describe('strategyInputShape: refused inputs, with what each takes', () => {
  it.each([
    [{ strategy: 'vote' }, 'strategy must be one of synthesize, judge, council (got "vote")'],
    [{ strategy: 2 }, 'strategy must be a string: one of synthesize, judge, council'],
    [{ max_cost_usd: -1 }, 'max_cost_usd must be above 0: it is the most, in US dollars, this call may cost at worst'],
    [{ max_cost_usd: 0 }, 'max_cost_usd must be above 0: it is the most, in US dollars, this call may cost at worst'],
    [{ max_cost_usd: '0.5' }, 'max_cost_usd must be a number of US dollars, such as 0.5'],
    [{ max_cost_usd: Infinity }, 'max_cost_usd must be a number of US dollars, such as 0.5'],
    [{ reasoning_effort: 'max' }, 'reasoning_effort must be one of minimal, low, medium, high (got "max")'],
    [{ reasoning_effort: true }, 'reasoning_effort must be a string: one of minimal, low, medium, high'],
    [{ follow_up_of: 42 }, 'follow_up_of must be a string: the run_id of a finished run'],
    [{ follow_up_of: '  ' }, 'follow_up_of must not be blank: give the run_id of a finished run'],
  ])('refuses %j', (input, message) => {
    expect(refusal(input)).toBe(message);
  });
});

describe('effectiveCeiling', () => {
  it.each([
    [undefined, undefined, undefined],
    [0.5, undefined, 0.5],
    [undefined, 2, 2],
    [0.5, 2, 0.5],
    [5, 2, 2],
  ])('call %s, server %s: %s (a call may lower the server’s ceiling, never raise it)', (call, server, expected) => {
    expect(effectiveCeiling(call, server)).toBe(expected);
  });
});
