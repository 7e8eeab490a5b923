import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config.js';
import { loadDotEnv, parseDotEnv } from '../src/config/dot-env.js';
import { folderWithDotEnv, tempDir } from './support/harness.js';

const parsed = (text: string) => Object.fromEntries(parseDotEnv(text));

describe('reading a .env text', () => {
  it('reads KEY=VALUE lines, skipping blank lines and comments, with or without `export `', () => {
    expect(parsed('# a comment\n\nA=1\nexport B=two\n  C = three  \n')).toEqual({ A: '1', B: 'two', C: 'three' });
  });

  it('ends a bare value at a # that starts it or follows a space, but keeps a # inside a word', () => {
    expect(parsed('A=value # note\nB=abc#def\nC=# all comment\n')).toEqual({ A: 'value', B: 'abc#def', C: '' });
  });

  it('keeps quoted values as they are, comments and spaces included; double quotes understand \\n, \\t, \\" and \\\\', () => {
    expect(parsed(`A="a # b "\nB='c # d \\n'\nC="line\\nnext\\t\\"q\\" \\\\"\n`)).toEqual({
      A: 'a # b ',
      B: 'c # d \\n',
      C: 'line\nnext\t"q" \\',
    });
  });

  it('reads a double-quoted value over several lines without reading its lines as variables', () => {
    expect(parsed('KEY="-----BEGIN\nX=not a variable\n-----END"\nNEXT=1\n')).toEqual({
      KEY: '-----BEGIN\nX=not a variable\n-----END',
      NEXT: '1',
    });
  });

  it('takes Windows line ends, a byte-order mark and an empty value', () => {
    expect(parsed('\uFEFFA=1\r\nB=\r\nC="x"\r\n')).toEqual({ A: '1', B: '', C: 'x' });
  });

  it('skips lines that are not KEY=VALUE, and lets a later line win', () => {
    expect(parsed('just words\n1BAD=x\nA=1\nA=2\n')).toEqual({ A: '2' });
  });
});

describe('loading .env from the working folder', () => {
  it('sets only OPENROUTER_* and PARALLEL_LLM_* variables the environment does not have, even empty ones', async () => {
    const dir = await folderWithDotEnv(
      'OPENROUTER_API_KEY=from-file\nPARALLEL_LLM_MODELS=a/b\nPARALLEL_LLM_TEMPERATURE=1\nOPENROUTER_BASE_URL=http://file\nNODE_TLS_REJECT_UNAUTHORIZED=0\n',
    );
    const env: NodeJS.ProcessEnv = { PARALLEL_LLM_TEMPERATURE: '0.2', OPENROUTER_BASE_URL: '' };
    expect(loadDotEnv(dir, env).sort()).toEqual(['OPENROUTER_API_KEY', 'PARALLEL_LLM_MODELS']);
    expect(env).toEqual({
      OPENROUTER_API_KEY: 'from-file',
      PARALLEL_LLM_MODELS: 'a/b',
      PARALLEL_LLM_TEMPERATURE: '0.2',
      OPENROUTER_BASE_URL: '',
    });
  });

  it('does nothing without a .env file', async () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadDotEnv(await tempDir(), env)).toEqual([]);
    expect(env).toEqual({});
  });

  it('throws a ConfigError naming the file when .env cannot be read', async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, '.env'));
    expect(() => loadDotEnv(dir, {})).toThrow(ConfigError);
    expect(() => loadDotEnv(dir, {})).toThrow(`${path.join(dir, '.env')} cannot be read (EISDIR)`);
  });
});
