import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const defaults = loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test' });

/** The default docs/configuration.md's table row gives for `variable`, without backticks. */
function documentedDefault(variable: string): string {
  const row = read('docs/configuration.md')
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
  ])('%s: docs/configuration.md’s table and .env.example give what the server uses', (variable, ids) => {
    expect(documentedDefault(variable)).toBe(ids.join(','));
    expect(envExampleValue(variable)).toBe(ids.join(','));
  });
});

/** Every page a user reads: the README and docs/. */
const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).map((file) => `docs/${file}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replaceAll(' ', '-');

describe('the README', () => {
  const readme = read('README.md');

  it('stays short, with the docs in docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(215);
  });

  it('has a quick start on its first screen: the key, Claude Code’s command, a client config block, and a first ask', () => {
    const firstScreen = readme.split('\n').slice(0, 60).join('\n');
    expect(firstScreen).toContain('https://openrouter.ai/keys');
    expect(firstScreen).toContain('claude mcp add parallel-llm');
    expect(firstScreen).toContain('"mcpServers"');
    expect(firstScreen).toMatch(/ ask "/);
  });

  it('says what a call costs and how to cap it, what is sent where and what is kept, and each client’s time limit', () => {
    for (const heading of ['## What a call costs', '## What is sent where, and what is kept', '## Time limits'])
      expect(readme).toContain(`\n${heading}\n`);
    for (const client of ['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'Codex', 'Gemini CLI'])
      expect(readme).toMatch(new RegExp(`^\\| ${client} \\|`, 'm'));
    expect(readme).toContain('default_tools_approval_mode = "approve"');
    expect(readme).toContain('tool_timeout_sec');
  });

  it('gives the two developer commands, the second being the one CI runs', () => {
    expect(readme).toContain(
      'npm ci      # installs and builds (dist/)\nnpm test    # typechecks, lints (Biome), checks the formatting (prettier) and runs every test',
    );
    expect(read('.ci/run')).toMatch(/\nnpm test\n?$/);
  });
});

describe('links in the README and docs/', () => {
  it.each(pages)('%s: every relative link points at a file that exists, and at a heading it has', (page) => {
    const text = read(page);
    for (const [, target] of text.matchAll(/\]\(((?!https?:)[^)\s]+)\)/g)) {
      const [file, fragment] = target!.split('#');
      const linked = file ? path.join(path.dirname(page), file) : page;
      expect(existsSync(path.join(root, linked)), `${page} → ${target}`).toBe(true);
      if (!fragment) continue;
      const headings = [...read(linked).matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1]!.replaceAll('`', '')));
      expect(headings, `${page} → ${target}`).toContain(fragment);
    }
  });
});
