import { describe, expect, it } from 'vitest';
import { adviceFor, httpError, UpstreamError } from '../src/errors.js';

describe('httpError: kind and retryability by status', () => {
  it.each([
    [400, 'http', false],
    [401, 'http', false],
    [402, 'http', false],
    [403, 'http', false],
    [404, 'http', false],
    [408, 'http', true],
    [429, 'rate_limited', true],
    // OpenRouter documents 408, 429, 502 and 503 as its transient errors; 500 is not among them.
    [500, 'http', false],
    [502, 'http', true],
    [503, 'http', true],
  ] as const)('HTTP %i is kind %s, retryable %s', (status, kind, retryable) => {
    const error = httpError(status, `status ${status}`);
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
  });

  it('keeps OpenRouter’s own message', () => {
    expect(httpError(402, 'Insufficient credits').message).toBe('Insufficient credits');
  });
});

describe('UpstreamError: retryability by kind', () => {
  it.each([
    ['network', true],
    ['rate_limited', true],
    ['timeout', false],
    ['bad_body', false],
    ['empty', false],
    ['truncated', false],
    ['cancelled', false],
  ] as const)('a %s error is retryable: %s', (kind, retryable) => {
    expect(new UpstreamError({ kind, message: kind }).retryable).toBe(retryable);
  });

  it('makes a provider error retryable by the same statuses as HTTP', () => {
    expect(new UpstreamError({ kind: 'provider', message: 'down', status: 502 }).retryable).toBe(true);
    expect(new UpstreamError({ kind: 'provider', message: 'bad', status: 400 }).retryable).toBe(false);
    expect(new UpstreamError({ kind: 'provider', message: 'no status' }).retryable).toBe(false);
  });

  it('lets the server’s retryableHint override the status', () => {
    expect(httpError(400, 'try again', { retryableHint: true }).retryable).toBe(true);
    expect(httpError(503, 'do not retry', { retryableHint: false }).retryable).toBe(false);
    expect(new UpstreamError({ kind: 'network', message: 'x', retryableHint: false }).retryable).toBe(false);
  });

  it('is an Error named UpstreamError that keeps its cause', () => {
    const cause = new Error('ECONNRESET');
    const error = new UpstreamError({ kind: 'network', message: 'connection reset', cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UpstreamError');
    expect(error.cause).toBe(cause);
  });
});

describe('UpstreamError.toJSON', () => {
  it('carries kind, message, status, code and retry_after_ms', () => {
    const error = httpError(429, 'Rate limit exceeded', { code: 'rate_limit', retryAfterMs: 3000 });
    expect(error.toJSON()).toEqual({
      kind: 'rate_limited',
      message: 'Rate limit exceeded',
      status: 429,
      code: 'rate_limit',
      retry_after_ms: 3000,
    });
  });

  it('leaves out fields that are not known, rather than writing undefined', () => {
    const json = new UpstreamError({ kind: 'timeout', message: 'no answer within 240000 ms' }).toJSON();
    expect(json).toEqual({ kind: 'timeout', message: 'no answer within 240000 ms' });
    expect(Object.keys(json).sort()).toEqual(['kind', 'message']);
  });

  it('keeps the cause, metadata and reasoning out of what is serialised', () => {
    const error = new UpstreamError({
      kind: 'truncated',
      message: 'max_tokens reached',
      cause: new Error('inner'),
      metadata: { provider_name: 'X' },
      reasoning: 'a very long chain of thought',
    });
    const text = JSON.stringify(error);
    expect(JSON.parse(text)).toEqual({ kind: 'truncated', message: 'max_tokens reached' });
    expect(text).not.toContain('chain of thought');
  });
});

describe('adviceFor', () => {
  it('tells the user to check OPENROUTER_API_KEY for a 401', () => {
    expect(adviceFor(httpError(401, 'No auth credentials found').toJSON())).toContain('OPENROUTER_API_KEY');
  });

  it('tells the user about credits for a 402', () => {
    expect(adviceFor(httpError(402, 'Insufficient credits').toJSON())).toMatch(/credit/i);
  });

  it('tells the user to raise max_tokens when the answer was truncated', () => {
    expect(adviceFor(new UpstreamError({ kind: 'truncated', message: 'ran out' }).toJSON())).toMatch(/max_tokens/);
  });

  it('tells the user to check the model id for a 404', () => {
    expect(adviceFor(httpError(404, 'No endpoints found').toJSON())).toMatch(/model/i);
  });

  it('sends the user to the model list and `doctor` for a 400 "not a valid model ID" and a 404 "No endpoints found"', () => {
    const advice = 'Check the model id at https://openrouter.ai/models, or run `parallel-llm-mcp doctor`.';
    expect(adviceFor(httpError(400, 'minimax-m2.5:free is not a valid model ID').toJSON())).toBe(advice);
    expect(adviceFor(httpError(404, 'No endpoints found for deepseek/deepseek-chat-v3.1:free.').toJSON())).toBe(advice);
    expect(adviceFor(httpError(400, 'Input must have at least 1 token.').toJSON())).toBeUndefined();
  });

  it('names PARALLEL_LLM_IDLE_TIMEOUT_MS for a silent stream, and PARALLEL_LLM_TIMEOUT_MS for the call’s limit', () => {
    const idle = adviceFor(
      new UpstreamError({ kind: 'timeout', code: 'idle_timeout', message: 'the stream was silent for 90000 ms' }).toJSON(),
    );
    const call = adviceFor(new UpstreamError({ kind: 'timeout', message: 'no complete answer within the 240000 ms limit' }).toJSON());
    expect(idle).toContain('PARALLEL_LLM_IDLE_TIMEOUT_MS');
    expect(idle).not.toContain('PARALLEL_LLM_TIMEOUT_MS');
    expect(call).toContain('PARALLEL_LLM_TIMEOUT_MS');
  });

  it('gives every piece of advice as one sentence with a single full stop', () => {
    const errors = [
      ...[400, 401, 402, 403, 404, 429].map((status) => httpError(status, 'is not a valid model ID')),
      ...(['timeout', 'truncated', 'network'] as const).map((kind) => new UpstreamError({ kind, message: 'x' })),
      new UpstreamError({ kind: 'timeout', code: 'idle_timeout', message: 'x' }),
    ];
    for (const error of errors) {
      const advice = adviceFor(error.toJSON())!;
      expect(advice, `${error.kind} ${error.status}`).toMatch(/^[A-Z][\s\S]*[^.]\.$/);
      expect(advice).not.toMatch(/\.\s*\./);
    }
  });

  it('gives no advice where there is nothing the user can do', () => {
    expect(adviceFor(new UpstreamError({ kind: 'bad_body', message: 'not JSON' }).toJSON())).toBeUndefined();
    expect(adviceFor(new UpstreamError({ kind: 'cancelled', message: 'cancelled' }).toJSON())).toBeUndefined();
  });
});
