import { describe, expect, it } from 'vitest';
import { takeStrategyFlags } from '../src/cli/ask-flags.js';

describe('ask’s strategy flags', () => {
  it('takes each flag with its value, written apart or with =, and leaves the rest', () => {
    expect(takeStrategyFlags(['--strategy', 'judge', 'Why', '--max-cost=0.5', 'is it?', '--reasoning-effort', 'high', '--follow-up-of', '2026-11-25T10-00-00.000Z_0a1b2c3d'])).toEqual({
      ok: true,
      value: { rest: ['Why', 'is it?'], inputs: { strategy: 'judge', max_cost_usd: 0.5, reasoning_effort: 'high', follow_up_of: '2026-11-25T10-00-00.000Z_0a1b2c3d' } },
    });
  });

  it('stops at --, so a prompt may hold the flags’ words', () => {
    expect(takeStrategyFlags(['--strategy', 'council', '--', '--strategy', 'judge'])).toEqual({ ok: true, value: { rest: ['--', '--strategy', 'judge'], inputs: { strategy: 'council' } } });
  });

  it('leaves other options to ask’s own reading (--help, an unknown one)', () => {
    expect(takeStrategyFlags(['--help', '-x'])).toEqual({ ok: true, value: { rest: ['--help', '-x'], inputs: {} } });
  });

  it.each([
    [['--strategy', 'vote'], '--strategy must be one of synthesize, judge, council (got "vote")'],
    [['--max-cost', 'cheap'], '--max-cost must be a number of US dollars, such as 0.5'],
    [['--max-cost=0'], '--max-cost must be above 0: it is the most, in US dollars, this call may cost at worst'],
    [['--max-cost', '-1'], '--max-cost needs a value'],
    [['--reasoning-effort', 'max'], '--reasoning-effort must be one of minimal, low, medium, high (got "max")'],
    [['--follow-up-of'], '--follow-up-of needs a value'],
    [['--follow-up-of='], '--follow-up-of must not be blank: give the run_id of a finished run'],
  ])('refuses %j with one line naming the flag', (args, message) => {
    expect(takeStrategyFlags(args)).toEqual({ ok: false, error: message });
  });
});
