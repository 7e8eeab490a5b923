import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../src/cli/doctor.js';
import { judgeModel, nearestCurrent, similar } from '../src/cli/model-check.js';
import { loadConfig } from '../src/config/config.js';
import type { ModelRow } from '../src/openrouter/schemas.js';
import { startCatalogServer, type CatalogOptions, type CatalogServer } from './support/catalog-server.js';
import { VALID_KEY } from './support/fake-openrouter.js';
import { tempDir } from './support/harness.js';

const row = (id: string, extra: Partial<ModelRow> = {}): ModelRow => ({ id, canonical_slug: id, created: 1_700_000_000, ...extra });
const day = (date: string) => Date.parse(date) / 1000;

/** A model list as OpenRouter might serve it in late 2026: aliases, expiring ids, :variants. */
const CATALOGUE: ModelRow[] = [
  row('~x-ai/grok-latest', { alias_target: { slug: 'x-ai/grok-4.3' } }),
  row('x-ai/grok-4.1-fast', { created: day('2025-11-19') }),
  row('x-ai/grok-4.1-fast:free', { created: day('2025-11-19') }),
  row('x-ai/grok-4.3', { created: day('2026-05-01') }),
  row('x-ai/grok-code-fast-1', { created: day('2025-08-26'), expiration_date: '2026-12-01' }),
  row('~google/gemini-pro-latest', { alias_target: { slug: 'google/gemini-3.1-pro-preview' } }),
  row('google/gemini-3.1-pro-preview', { created: day('2026-02-19') }),
  row('google/gemini-3.5-flash', { created: day('2026-06-01') }),
  row('openai/gpt-5.1-codex', { created: day('2025-11-13'), expiration_date: '2026-07-15' }),
  row('openai/gpt-5.3-codex', { created: day('2026-02-05') }),
  row('openai/gpt-5.6-sol', { created: day('2026-08-01') }),
  row('mistralai/mistral-medium-3-5', { canonical_slug: 'mistralai/mistral-medium-3-5-20260429' }),
];

describe('judging a configured model id against the model list', () => {
  it('accepts a listed alias and names the model it points at today', () => {
    expect(judgeModel('~x-ai/grok-latest', CATALOGUE)).toEqual({ status: 'listed', aliasOf: 'x-ai/grok-4.3' });
  });

  it('accepts an id given by its canonical slug', () => {
    expect(judgeModel('mistralai/mistral-medium-3-5-20260429', CATALOGUE)).toEqual({ status: 'listed' });
  });

  it('cannot check an alias against a list that shows no alias at all', () => {
    expect(judgeModel('~z-ai/glm-latest', [row('z-ai/glm-5.3')])).toEqual({ status: 'unchecked_alias' });
  });

  it.each([':nitro', ':floor', ':free', ':online', ':thinking', ':exacto', ':some-new-variant'])(
    'accepts the %s variant of a listed id, checked on its base id',
    (variant) => {
      expect(judgeModel(`openai/gpt-5.3-codex${variant}`, CATALOGUE)).toEqual({ status: 'listed', variantOf: 'openai/gpt-5.3-codex' });
    },
  );

  it('accepts a variant the list shows as a row of its own, and a variant of a listed alias', () => {
    expect(judgeModel('x-ai/grok-4.1-fast:free', CATALOGUE)).toEqual({ status: 'listed' });
    expect(judgeModel('~x-ai/grok-latest:nitro', CATALOGUE)).toEqual({
      status: 'listed',
      aliasOf: 'x-ai/grok-4.3',
      variantOf: '~x-ai/grok-latest',
    });
  });

  it('judges a variant of an expiring or unknown id as its base: expiring, or gone with the base id’s nearest ids', () => {
    expect(judgeModel('openai/gpt-5.1-codex:nitro', CATALOGUE)).toMatchObject({ status: 'expiring', date: '2026-07-15' });
    expect(judgeModel('x-ai/grok-4-fast:floor', CATALOGUE)).toEqual({
      status: 'gone',
      suggestions: nearestCurrent('x-ai/grok-4-fast', CATALOGUE),
    });
  });

  it('calls an alias gone when the list shows aliases but not this one', () => {
    const verdict = judgeModel('~x-ai/grok-lastest', CATALOGUE);
    expect(verdict.status).toBe('gone');
    expect((verdict as { suggestions: string[] }).suggestions[0]).toBe('~x-ai/grok-latest');
  });

  it('suggests, for a retired id, the nearest current id of its vendor first, never an expiring one or a :variant', () => {
    const verdict = judgeModel('x-ai/grok-4-fast', CATALOGUE);
    expect(verdict.status).toBe('gone');
    const { suggestions } = verdict as { suggestions: string[] };
    expect(suggestions[0]).toBe('x-ai/grok-4.1-fast');
    expect(suggestions).toContain('~x-ai/grok-latest');
    expect(suggestions).not.toContain('x-ai/grok-code-fast-1');
    expect(suggestions).not.toContain('x-ai/grok-4.1-fast:free');
  });

  it('prefers the same family over a newer model of another family', () => {
    expect(nearestCurrent('google/gemini-2.5-pro', CATALOGUE).slice(0, 2).sort()).toEqual([
      'google/gemini-3.1-pro-preview',
      '~google/gemini-pro-latest',
    ]);
  });

  it('flags an id with an expiration date and suggests its current successor', () => {
    expect(judgeModel('openai/gpt-5.1-codex', CATALOGUE)).toMatchObject({ status: 'expiring', date: '2026-07-15' });
    expect(nearestCurrent('openai/gpt-5.1-codex', CATALOGUE)[0]).toBe('openai/gpt-5.3-codex');
  });

  it('falls back to the closest spellings when the vendor itself is mistyped', () => {
    expect(nearestCurrent('opneai/gpt-5.3-codex', CATALOGUE)[0]).toBe('openai/gpt-5.3-codex');
    expect(nearestCurrent('acme/nothing-like-it', CATALOGUE)).toEqual([]);
  });
});

describe('doctor’s suggestions for a mistyped model id', () => {
  const ids = [
    'openai/gpt-4o',
    'openai/gpt-4o-mini',
    'openai/gpt-4.1',
    'openai/gpt-5',
    'openai/gpt-5-mini',
    'openai/gpt-5-codex',
    'x-ai/grok-4-fast',
  ];

  it.each(['openai/gpt-5-codx', 'openai/gtp-5-codex', 'openai/gpt-5-codec'])('puts the closest id first for %s', (typo) => {
    expect(similar(typo, ids)[0]).toBe('openai/gpt-5-codex');
    expect(
      nearestCurrent(
        typo,
        ids.map((id) => row(id)),
      )[0],
    ).toBe('openai/gpt-5-codex');
  });

  it('suggests nothing when no id is close, and at most three', () => {
    expect(similar('anthropic/claude-opus-4', ids)).toEqual([]);
    expect(similar('openai/gpt-4', ids).length).toBeLessThanOrEqual(3);
  });
});

/** stdout for doctor, remembering when each piece was written. */
function recorder() {
  const writes: Array<{ at: number; text: string }> = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push({ at: Date.now(), text: chunk.toString('utf8') });
      done();
    },
  });
  return { out, writes, text: () => writes.map((write) => write.text).join('') };
}

const servers: CatalogServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function doctorAgainst(options: CatalogOptions, limitMs = 10_000) {
  const server = await startCatalogServer(options);
  servers.push(server);
  const config = loadConfig({
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: server.url,
    PARALLEL_LLM_OUTPUT_DIR: await tempDir(),
    PARALLEL_LLM_MODELS: 'x-ai/grok-4.3,~google/gemini-pro-latest',
    PARALLEL_LLM_SYNTHESIZER_MODEL: '~google/gemini-pro-latest',
  });
  const output = recorder();
  const started = Date.now();
  const code = await runDoctor(config, { out: output.out, limitMs });
  return { code, ms: Date.now() - started, ...output };
}

describe('doctor against a hung or partial upstream', () => {
  it('runs its checks at once, prints each as it finishes, and marks what a hung upstream did not answer within the limit as not checked', async () => {
    const limitMs = 1500;
    const result = await doctorAgainst({ key: 'hang', models: 'hang' }, limitMs);

    expect(result.code).toBe(0);
    // Not one limit after another: all checks share the same window.
    expect(result.ms).toBeLessThan(2 * limitMs);
    const folderLine = result.writes.find((write) => write.text.includes('runs are saved in'))!;
    const keyLine = result.writes.find((write) => write.text.includes('/key within 1.5 s'))!;
    expect(folderLine.at - result.writes[0]!.at).toBeLessThan(limitMs / 2);
    expect(keyLine.at).toBeGreaterThan(folderLine.at);
    expect(result.text()).toMatch(/^\? no answer from \S+\/models within 1\.5 s$/m);
    expect(result.text().trim().split('\n').at(-1)).toBe('1 passed, 2 could not be checked.');
  });

  it('never says all checks passed when a server without /key and /models could not tell: it counts what was not checked, and passes', async () => {
    const result = await doctorAgainst({ key: 'missing', models: 'missing' });

    expect(result.code).toBe(0);
    expect(result.text()).toMatch(/^\? http:\/\/127\.0\.0\.1:\d+\/api\/v1\/key is not available; the key was not checked$/m);
    expect(result.text()).toMatch(/^\? http:\/\/127\.0\.0\.1:\d+\/api\/v1\/models is not available; the model ids were not checked$/m);
    expect(result.text()).not.toContain('All checks passed');
    expect(result.text().trim().split('\n').at(-1)).toBe('1 passed, 2 could not be checked.');
  });

  it('marks an alias as not checked when the model list shows no alias at all, as a real list may', async () => {
    const result = await doctorAgainst({ key: { label: 'k' }, models: [{ id: 'x-ai/grok-4.3' }, { id: 'google/gemini-3.1-pro-preview' }] });

    expect(result.code).toBe(0);
    expect(result.text()).toMatch(
      /^\? candidate and synthesizer model ~google\/gemini-pro-latest is an alias, which \S+ does not list \(it lists no aliases\): it was not checked$/m,
    );
    expect(result.text()).not.toMatch(/^✔ .*~google/m);
    expect(result.text().trim().split('\n').at(-1)).toBe('3 passed, 1 could not be checked.');
  });

  it('checks the model ids even where /key does not exist', async () => {
    const result = await doctorAgainst({
      key: 'missing',
      models: [{ id: 'x-ai/grok-4.3' }, { id: '~google/gemini-pro-latest', alias_target: { slug: 'google/gemini-3.1-pro-preview' } }],
    });

    expect(result.code).toBe(0);
    expect(result.text()).toContain('✔ candidate model x-ai/grok-4.3 exists');
    expect(result.text()).toContain(
      '✔ candidate and synthesizer model ~google/gemini-pro-latest exists (an alias, now google/gemini-3.1-pro-preview)',
    );
    expect(result.text().trim().split('\n').at(-1)).toBe('3 passed, 1 could not be checked.');
  });
});
