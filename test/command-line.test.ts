import { describe, expect, it } from 'vitest';
import { fitToWidth } from '../src/cli/board.js';
import { ASK_OPTIONS, askOptions } from '../src/cli/ask-options.js';
import { readCommandLine } from '../src/cli/command-line.js';

const ask = (...args: string[]) => readCommandLine('ask', args, { words: true, options: ASK_OPTIONS });
const doctor = (...args: string[]) => readCommandLine('doctor', args, { words: false });

describe('ask’s arguments', () => {
  it.each([['--help'], ['-h'], ['What', '--help']])('asks for help, never a paid prompt, for %s', (...args) => {
    expect(ask(...args)).toEqual({ kind: 'help' });
  });

  it('joins the words into the prompt', () => {
    expect(ask('What', 'is', '2+2?')).toEqual({ kind: 'run', words: ['What', 'is', '2+2?'], values: {} });
  });

  it('sends a dash-word as the prompt after --, the POSIX way', () => {
    expect(ask('--', '--help')).toEqual({ kind: 'run', words: ['--help'], values: {} });
    expect(ask('--fresh', '--', '-5', 'degrees?')).toEqual({ kind: 'run', words: ['-5', 'degrees?'], values: { fresh: true } });
  });

  it('reads each option with its value, given after it or after =, anywhere among the words', () => {
    expect(
      ask('--models', 'a/x,b/y', 'What', '--synthesizer=c/z', 'now?', '--temperature', '0.2', '--max-tokens=99', '--fresh', '--json'),
    ).toEqual({
      kind: 'run',
      words: ['What', 'now?'],
      values: { models: 'a/x,b/y', synthesizer: 'c/z', temperature: '0.2', 'max-tokens': '99', fresh: true, json: true },
    });
  });

  it.each([
    [['--models'], '--models needs a value'],
    [['--models', '--json', 'q'], '--models needs a value'],
    [['--temperature', '-1', 'q'], '--temperature needs a value'],
    [['--fresh=yes', 'q'], '--fresh takes no value'],
  ])('refuses %j in one line: %s', (args, message) => {
    expect(ask(...args)).toEqual({ kind: 'error', message: `parallel-llm-mcp ask: ${message}; see parallel-llm-mcp ask --help` });
  });

  it.each([['--frobnicate'], ['-x', 'q'], ['q', '--vote=judge']])(
    'refuses the unknown option in %s, naming it and the -- way out',
    (...args) => {
      const line = ask(...args);
      expect(line.kind).toBe('error');
      const { message } = line as { message: string };
      expect(message).toContain(`"${args.find((arg) => arg.startsWith('-'))!.split('=')[0]}"`);
      expect(message).toContain('put -- before it');
      expect(message).toContain('parallel-llm-mcp ask --help');
      expect(message).not.toContain('\n');
    },
  );
});

describe('ask’s options, read with the rules of process_prompt’s arguments', () => {
  const options = (...args: string[]) => {
    const line = ask(...args, 'q');
    if (line.kind !== 'run') throw new Error(`not a run: ${JSON.stringify(line)}`);
    return askOptions(line.values);
  };

  it('gives each setting as the tool names it, lists split on commas, numbers as numbers', () => {
    expect(
      options('--models', 'a/x, b/y,a/x', '--synthesizer', 'c/z,d/w', '--temperature', '0', '--max-tokens', '512', '--fresh', '--json'),
    ).toEqual({
      ok: true,
      value: {
        settings: { models: ['a/x', 'b/y', 'a/x'], synthesizer_model: ['c/z', 'd/w'], temperature: 0, max_tokens: 512 },
        fresh: true,
        json: true,
      },
    });
  });

  it('gives the strategy, the cost ceiling, the reasoning effort and the run to follow up as the tool names them', () => {
    expect(
      options('--strategy', 'judge', '--max-cost=0.5', '--reasoning-effort', 'high', '--follow-up-of', '2026-11-25T10-00-00.000Z_0a1b2c3d'),
    ).toEqual({
      ok: true,
      value: {
        settings: { strategy: 'judge', max_cost_usd: 0.5, reasoning_effort: 'high', follow_up_of: '2026-11-25T10-00-00.000Z_0a1b2c3d' },
        fresh: false,
        json: false,
      },
    });
  });

  it('turns the account of agreement off with --no-agreement, as agreement: false does', () => {
    expect(options('--no-agreement')).toEqual({ ok: true, value: { settings: { agreement: false }, fresh: false, json: false } });
  });

  it('sets nothing the flags do not name', () => {
    expect(options()).toEqual({ ok: true, value: { settings: {}, fresh: false, json: false } });
  });

  it.each([
    [['--temperature', 'warm'], '--temperature must be a number (got "warm")'],
    [['--temperature', '2.5'], '--temperature "2.5": temperature must be between 0 and 2'],
    [['--max-tokens', '1.5'], '--max-tokens "1.5": max_tokens must be a whole number'],
    [['--max-tokens', '0'], '--max-tokens "0": max_tokens must be between 1 and 1000000'],
    [['--models', ' , '], '--models " , ": models must name at least one model'],
    [['--synthesizer', 'a,b,c,d,e,f'], '--synthesizer "a,b,c,d,e,f": synthesizer_model may name at most 5 models'],
    [['--strategy', 'vote'], '--strategy "vote": strategy must be one of synthesize, judge, council (got "vote")'],
    [['--max-cost', 'cheap'], '--max-cost must be a number (got "cheap")'],
    [['--max-cost', '0'], '--max-cost "0": max_cost_usd must be above 0: it is the most, in US dollars, this call may cost at worst'],
    [['--reasoning-effort', 'max'], '--reasoning-effort "max": reasoning_effort must be one of minimal, low, medium, high (got "max")'],
    [['--follow-up-of', ' '], '--follow-up-of " ": follow_up_of must not be blank: give the run_id of a finished run'],
  ])('refuses %j, naming the flag, the value and the rule', (args, message) => {
    expect(options(...args)).toEqual({ ok: false, error: message });
  });
});

describe('doctor’s arguments', () => {
  it('runs with none, and gives help for -h and --help', () => {
    expect(doctor()).toEqual({ kind: 'run', words: [], values: {} });
    expect(doctor('-h')).toEqual({ kind: 'help' });
    expect(doctor('--help')).toEqual({ kind: 'help' });
  });

  it('refuses an unknown option and a stray argument', () => {
    expect(doctor('--verbose')).toMatchObject({ kind: 'error', message: expect.stringContaining('"--verbose"') });
    expect(doctor('now')).toMatchObject({ kind: 'error', message: expect.stringContaining('unexpected argument "now"') });
  });
});

describe('fitting a board line to the terminal', () => {
  it('leaves a line that fits, or an unknown width, alone', () => {
    expect(fitToWidth('  ✔ a/b answered in 1.0 s', 80)).toBe('  ✔ a/b answered in 1.0 s');
    expect(fitToWidth('x'.repeat(200), undefined)).toBe('x'.repeat(200));
  });

  it('cuts a longer line with an ellipsis, one column short of the edge', () => {
    const line = fitToWidth('  ✘ openrouter/some-very-long-model-id failed: http 503: No endpoints found', 30);
    expect(Array.from(line)).toHaveLength(29);
    expect(line.endsWith('…')).toBe(true);
    expect(line.startsWith('  ✘ openrouter/')).toBe(true);
  });
});
