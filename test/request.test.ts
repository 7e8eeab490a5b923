import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { requestKey, type RunRequest } from '../src/run/request.js';
import { runRequest } from '../src/mcp/run-request.js';
import { requestSchema } from '../src/run/request-schema.js';

const request: RunRequest = {
  prompt: 'q',
  models: ['a/one', 'b/two'],
  synthesizers: ['s/synth'],
  temperature: 0.7,
  maxTokens: 1000,
  strategy: 'synthesize',
};
const UPSTREAM = 'https://openrouter.ai/api/v1 0123456789abcdef';

describe('requestKey', () => {
  it('is the key runs saved before strategies existed were indexed by, for a request with the defaults', () => {
    const before = createHash('sha256')
      .update(JSON.stringify([UPSTREAM, 'q', ['a/one', 'b/two'], ['s/synth'], 0.7, 1000]))
      .digest('hex')
      .slice(0, 32);
    expect(requestKey(request, UPSTREAM)).toBe(before);
  });

  it('tells apart requests that differ in strategy, reasoning effort or the run they follow up', () => {
    const keys = [
      request,
      { ...request, strategy: 'judge' as const },
      { ...request, strategy: 'council' as const },
      { ...request, reasoningEffort: 'high' as const },
      { ...request, reasoningEffort: 'low' as const },
      { ...request, followUpOf: '2026-11-25T10-00-00.000Z_0a1b2c3d' },
      { ...request, agreement: false as const },
    ].map((each) => requestKey(each, UPSTREAM));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is what the run host receives: the schema keeps the new fields and refuses an unknown strategy', () => {
    expect(requestSchema.parse({ ...request, strategy: 'judge', reasoningEffort: 'medium', followUpOf: 'x' })).toMatchObject({
      strategy: 'judge',
      reasoningEffort: 'medium',
      followUpOf: 'x',
    });
    expect(requestSchema.safeParse({ ...request, strategy: 'vote' }).success).toBe(false);
    expect(requestSchema.parse({ ...request, agreement: false })).toMatchObject({ agreement: false });
  });
});

describe('runRequest: the account of agreement', () => {
  const config = loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test', PARALLEL_LLM_AGREEMENT: 'off' });
  const on = { ...config, agreement: true };

  it('is asked for unless the call or the configuration turns it off; a call may turn it on again', () => {
    expect(runRequest('q', {}, on)).not.toHaveProperty('agreement');
    expect(runRequest('q', { agreement: false }, on)).toMatchObject({ agreement: false });
    expect(runRequest('q', {}, config)).toMatchObject({ agreement: false });
    expect(runRequest('q', { agreement: true }, config)).not.toHaveProperty('agreement');
  });
});
