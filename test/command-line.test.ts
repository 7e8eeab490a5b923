import { describe, expect, it } from 'vitest';
import { fitToWidth } from '../src/cli/board.js';
import { readCommandLine } from '../src/cli/command-line.js';

const ask = (...args: string[]) => readCommandLine('ask', args, { words: true });
const doctor = (...args: string[]) => readCommandLine('doctor', args, { words: false });

describe('ask’s arguments', () => {
  it.each([['--help'], ['-h'], ['What', '--help']])('asks for help, never a paid prompt, for %s', (...args) => {
    expect(ask(...args)).toEqual({ kind: 'help' });
  });

  it('joins the words into the prompt', () => {
    expect(ask('What', 'is', '2+2?')).toEqual({ kind: 'run', words: ['What', 'is', '2+2?'] });
  });

  it('sends a dash-word as the prompt after --, the POSIX way', () => {
    expect(ask('--', '--help')).toEqual({ kind: 'run', words: ['--help'] });
    expect(ask('--', '-5', 'degrees?')).toEqual({ kind: 'run', words: ['-5', 'degrees?'] });
  });

  it.each([['--frobnicate'], ['-x', 'q'], ['q', '--models=a/b']])('refuses the unknown option in %s, naming it and the -- way out', (...args) => {
    const line = ask(...args);
    expect(line.kind).toBe('error');
    const { message } = line as { message: string };
    expect(message).toContain(`"${args.find((arg) => arg.startsWith('-'))!.split('=')[0]}"`);
    expect(message).toContain('put -- before it');
    expect(message).toContain('parallel-llm-mcp ask --help');
    expect(message).not.toContain('\n');
  });
});

describe('doctor’s arguments', () => {
  it('runs with none, and gives help for -h and --help', () => {
    expect(doctor()).toEqual({ kind: 'run', words: [] });
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
