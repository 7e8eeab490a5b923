import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const defaults = loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test' });

/** The default a README config table row gives for `variable`, without backticks. */
function readmeDefault(variable: string): string {
  const row = read('README.md')
    .split('\n')
    .find((line) => line.startsWith(`| \`${variable}\` |`));
  return row!.split('|').at(-2)!.trim().replaceAll('`', '');
}

/** The value a commented-out line of .env.example gives for `variable`. */
function envExampleValue(variable: string): string {
  const line = read('.env.example')
    .split('\n')
    .find((text) => text.startsWith(`# ${variable}=`));
  return line!.slice(`# ${variable}=`.length);
}

describe('the documented default models', () => {
  it.each([
    ['PARALLEL_LLM_MODELS', defaults.models],
    ['PARALLEL_LLM_SYNTHESIZER_MODEL', defaults.synthesizerModels],
  ])('%s: README’s table and .env.example give what the server uses', (variable, ids) => {
    expect(readmeDefault(variable)).toBe(ids.join(','));
    expect(envExampleValue(variable)).toBe(ids.join(','));
  });
});
