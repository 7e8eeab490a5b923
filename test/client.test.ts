import { pino } from 'pino';
import { z } from 'zod';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { UpstreamError } from '../src/errors.js';
import type { OpenRouterClient } from '../src/openrouter/client.js';
import { TextParts } from '../src/openrouter/text-parts.js';
import { VALID_KEY, startFakeOpenRouter, type Behaviour } from './support/fake-openrouter.js';
import { testClient } from './support/client.js';
import { waitFor } from './support/wait.js';

const chat = (model: string) => ({ model, prompt: 'Why is the sky blue?', temperature: 0.7, maxTokens: 1000 });

const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
let client: OpenRouterClient;

afterAll(() => fake.close());
afterEach(async () => {
  await client?.close();
});

/** Runs a completion that must fail, and returns its typed error. */
async function failure(model: string, c = client): Promise<UpstreamError> {
  const error = await c.complete(chat(model)).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('OpenRouterClient against a fake OpenRouter', () => {
  it('streams an answer, skipping keep-alive comments, and reads usage and cost from the last chunk', async () => {
    client = testClient(fake.url);
    fake.on('m/stream', { answer: 'Rayleigh scattering.', delayMs: 120, reasoning: 'think', chunks: 4 });
    const completion = await client.complete(chat('m/stream'));
    expect(completion.content).toBe('Rayleigh scattering.');
    expect(completion.reasoning).toBe('think');
    expect(completion.usage).toEqual({ prompt_tokens: 100, completion_tokens: 50, reasoning_tokens: 20, total_tokens: 150, cost: 0.0015 });
    expect(completion.attempts).toBe(1);
    expect(completion.truncated).toBe(false);
  });

  it('sends the key, attribution headers, max_tokens, one user message and stream: true', async () => {
    client = testClient(fake.url);
    fake.on('m/headers', { answer: 'ok' });
    await client.complete(chat('m/headers'));
    const [request] = fake.requestsFor('m/headers');
    expect(request!.headers.authorization).toBe(`Bearer ${VALID_KEY}`);
    expect(request!.headers['http-referer']).toMatch(/^https:\/\//);
    expect(request!.headers['x-title']).toBe('parallel-llm-mcp');
    expect(request!.body).toMatchObject({
      model: 'm/headers',
      max_tokens: 1000,
      temperature: 0.7,
      stream: true,
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
    });
  });

  it("sends every request under the base URL's path", async () => {
    client = testClient(fake.url);
    fake.on('m/path', { answer: 'ok' });
    await client.complete(chat('m/path'));
    expect(fake.requestsFor('m/path').map((request) => request.path)).toEqual(['/api/v1/chat/completions']);
    const key = await client.getJson('/key', z.object({ data: z.object({ label: z.string() }) }));
    expect(key.data.label).toBe('test key');
  });

  it('accepts a plain JSON completion from a server that does not stream', async () => {
    client = testClient(fake.url);
    fake.on('m/json', { answer: 'from json', json: true });
    expect((await client.complete(chat('m/json'))).content).toBe('from json');
  });

  it.each([400, 401, 402, 403])('never retries HTTP %i and passes OpenRouter’s message on unchanged', async (status) => {
    client = testClient(fake.url);
    const model = `m/status-${status}`;
    const message = `OpenRouter says ${status}: Insufficient credits. Add more using https://openrouter.ai/settings/credits`;
    fake.on(model, { status, error: { code: status, message, metadata: { provider_name: null } } });
    const error = await failure(model);
    expect(error).toMatchObject({ kind: 'http', status, message, retryable: false });
    expect(fake.requestsFor(model)).toHaveLength(1);
  });

  it('honours Retry-After in seconds on a 429 before retrying', async () => {
    client = testClient(fake.url);
    fake.on(
      'm/429',
      { status: 429, error: { code: 429, message: 'Rate limit exceeded' }, headers: { 'retry-after': '1' } },
      { answer: 'after the wait' },
    );
    const completion = await client.complete(chat('m/429'));
    const [first, second] = fake.requestsFor('m/429');
    expect(completion).toMatchObject({ content: 'after the wait', attempts: 2 });
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(990);
    expect(second!.at - first!.at).toBeLessThan(1500);
  });

  it('honours Retry-After given as an HTTP date on a 503', async () => {
    client = testClient(fake.url);
    const inOneSecond = new Date(Date.now() + 1500).toUTCString();
    fake.on('m/503-date', { status: 503, headers: { 'retry-after': inOneSecond } }, { answer: 'back' });
    await expect(client.complete(chat('m/503-date'))).resolves.toMatchObject({ content: 'back', attempts: 2 });
    const [first, second] = fake.requestsFor('m/503-date');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(400);
  });

  it('uses OpenRouter’s retry hint in the error body when there is no header', async () => {
    client = testClient(fake.url);
    const error = {
      code: 429,
      message: 'Provider returned error',
      metadata: { raw: 'temporarily rate-limited upstream', provider_name: 'Liquid', retry_after_seconds: 0.3 },
    };
    fake.on('m/hint', { status: 429, error }, { answer: 'ok' });
    await client.complete(chat('m/hint'));
    const [first, second] = fake.requestsFor('m/hint');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(290);
  });

  it('names the provider’s own words from metadata.raw in the message', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on('m/raw', {
      status: 429,
      error: {
        code: 429,
        message: 'Provider returned error',
        metadata: { raw: 'quota exhausted for today', provider_name: 'Google AI Studio' },
      },
    });
    const error = await failure('m/raw');
    expect(error.kind).toBe('rate_limited');
    expect(error.message).toBe('Provider returned error (Google AI Studio: quota exhausted for today)');
  });

  it('never passes a blank upstream message on as the error message', async () => {
    client = testClient(fake.url);
    fake.on('m/blank-message', { status: 400, error: { code: 400, message: '   ' } });
    expect((await failure('m/blank-message')).message).toBe('the upstream reported an error without a message');
  });

  it('does not retry when OpenRouter says the failure is not retryable', async () => {
    client = testClient(fake.url);
    fake.on('m/not-retryable', { status: 503, error: { code: 503, message: 'No endpoints found', availability: { retryable: false } } });
    expect(await failure('m/not-retryable')).toMatchObject({ status: 503, retryable: false });
    expect(fake.requestsFor('m/not-retryable')).toHaveLength(1);
  });

  it('retries 408, 502 and 503 with backoff and reports how many attempts it took', async () => {
    client = testClient(fake.url);
    fake.on('m/flaky', { status: 502 }, { status: 408 }, { answer: 'third time lucky' });
    expect(await client.complete(chat('m/flaky'))).toMatchObject({ content: 'third time lucky', attempts: 3 });
  });

  it('gives up after the configured retries with the last real error', async () => {
    client = testClient(fake.url);
    fake.on('m/always-429', { status: 429, error: { code: 429, message: 'Rate limit exceeded: free-models-per-min' } });
    const error = await failure('m/always-429');
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, message: 'Rate limit exceeded: free-models-per-min' });
    expect(fake.requestsFor('m/always-429')).toHaveLength(3);
  });

  it('does not wait for a Retry-After that ends past the call’s limit', async () => {
    client = testClient(fake.url, { timeoutMs: 1000 });
    fake.on('m/long-wait', { status: 429, headers: { 'retry-after': '30' } });
    const started = Date.now();
    const error = await failure('m/long-wait');
    expect(Date.now() - started).toBeLessThan(500);
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 30_000 });
    expect(fake.requestsFor('m/long-wait')).toHaveLength(1);
  });

  it('treats an error object in an HTTP 200 body as the error it is', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on('m/200-error', { body200: { error: { code: 502, message: 'This content was flagged by the provider' } } });
    expect(await failure('m/200-error')).toMatchObject({ kind: 'http', status: 502, message: 'This content was flagged by the provider' });
  });

  it('treats choices[0].error with finish_reason "error" as a failure, not a half answer', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    const body = {
      choices: [
        {
          message: { role: 'assistant', content: 'partial output...' },
          finish_reason: 'error',
          error: { code: 502, message: 'Provider disconnected mid-stream' },
        },
      ],
    };
    fake.on('m/choice-error', { body200: body });
    expect(await failure('m/choice-error')).toMatchObject({ kind: 'http', status: 502, message: 'Provider disconnected mid-stream' });
  });

  it('fails at once on a mid-stream error chunk and does not retry after content started', async () => {
    client = testClient(fake.url);
    const content = (text: string) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n`;
    const errorChunk = `data: ${JSON.stringify({ error: { code: 'server_error', message: 'Provider disconnected unexpectedly' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}\n`;
    fake.on('m/mid-stream', {
      sse: [': OPENROUTER PROCESSING', '', content('Half an an'), errorChunk, { pauseMs: 3000 }, 'data: [DONE]', ''],
    });
    const started = Date.now();
    const error = await failure('m/mid-stream');
    expect(error).toMatchObject({ kind: 'provider', message: 'Provider disconnected unexpectedly' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.requestsFor('m/mid-stream')).toHaveLength(1);
  });

  it('reports finish_reason "error" without an error object as a provider failure', async () => {
    client = testClient(fake.url);
    fake.on('m/finish-error', { answer: 'cut', finishReason: 'error' });
    expect((await failure('m/finish-error')).kind).toBe('provider');
  });

  it('reports a reasoning model that spent max_tokens before answering as truncated, keeping its reasoning', async () => {
    client = testClient(fake.url);
    fake.on('m/reasoner', { answer: '', reasoning: 'Let me think about this very carefully...', finishReason: 'length', json: true });
    const error = await failure('m/reasoner');
    expect(error.kind).toBe('truncated');
    expect(error.message).toContain('max_tokens (1000)');
    expect(error.reasoning).toBe('Let me think about this very carefully...');
  });

  it('keeps an answer cut at max_tokens but marks it truncated', async () => {
    client = testClient(fake.url);
    fake.on('m/long', { answer: 'a long answer that stops', finishReason: 'length' });
    expect(await client.complete(chat('m/long'))).toMatchObject({ content: 'a long answer that stops', truncated: true });
  });

  it('reports null or blank content as an empty answer', async () => {
    client = testClient(fake.url);
    fake.on('m/empty', { answer: '', json: true });
    fake.on('m/blank', { answer: '  \n ' });
    expect((await failure('m/empty')).kind).toBe('empty');
    expect((await failure('m/blank')).kind).toBe('empty');
  });

  it('reports malformed JSON and malformed stream chunks as bad_body', async () => {
    client = testClient(fake.url);
    fake.on('m/bad-json', { sse: [] });
    fake.on('m/bad-chunk', { sse: ['data: {"choices": [', ''] });
    fake.on('m/wrong-shape', { body200: { choices: 'not a list' } });
    expect((await failure('m/bad-chunk')).kind).toBe('bad_body');
    expect((await failure('m/wrong-shape')).kind).toBe('bad_body');
  });

  it('treats a stream that ends cleanly but without finish_reason or [DONE] as cut short, never as an answer', async () => {
    client = testClient(fake.url);
    const half = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'The first half of an ans' } }] })}`;
    fake.on('m/cut-short', { sse: [half, ''] });
    const error = await failure('m/cut-short');
    expect(error).toMatchObject({
      kind: 'network',
      message: 'the stream ended before the answer was complete (no finish_reason, no [DONE])',
    });
    expect(fake.requestsFor('m/cut-short')).toHaveLength(1);
  });

  it('keeps an answer complete at [DONE] even when the server then holds the connection open', async () => {
    client = testClient(fake.url, { idleTimeoutMs: 300 });
    const chunk = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'whole answer' }, finish_reason: 'stop' }] })}`;
    fake.on('m/lingering', { sse: [chunk, '', 'data: [DONE]', '', { pauseMs: 2000 }] });
    expect(await client.complete(chat('m/lingering'))).toMatchObject({ content: 'whole answer' });
  });

  it('reports a redirect as the HTTP status it is, since redirects are not followed', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on('m/redirect', { status: 301, body: '<html>Moved</html>', headers: { location: 'https://elsewhere.example/api/v1' } });
    expect(await failure('m/redirect')).toMatchObject({ kind: 'http', status: 301 });
  });

  it('does not retry a request undici refuses to send, such as a key with a line break', async () => {
    client = testClient(fake.url, { apiKey: 'sk-or-v1-abc\n' });
    const error = await failure('m/any');
    expect(error).toMatchObject({ kind: 'network', code: 'UND_ERR_INVALID_ARG', retryable: false });
  });

  it('retries a connection reset before any content, then succeeds', async () => {
    client = testClient(fake.url);
    fake.on('m/reset-once', { reset: true }, { answer: 'recovered' });
    expect(await client.complete(chat('m/reset-once'))).toMatchObject({ content: 'recovered', attempts: 2 });
  });

  it('classifies a connection that keeps resetting as a network error with a code', async () => {
    client = testClient(fake.url);
    fake.on('m/reset', { reset: true });
    const error = await failure('m/reset');
    expect(error.kind).toBe('network');
    expect(error.code).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
  });

  it('reports a refused connection as a network error', async () => {
    client = testClient('http://127.0.0.1:1/api/v1', { retry: { maxRetries: 0 } });
    expect(await failure('m/any')).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('times out a server that never answers, after the silence limit', async () => {
    client = testClient(fake.url, { idleTimeoutMs: 300, retry: { maxRetries: 0 } });
    fake.on('m/hang', { hang: true });
    const started = Date.now();
    const error = await failure('m/hang');
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('silent for 300 ms');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('still enforces the per-call limit when keep-alive comments keep the stream busy', async () => {
    client = testClient(fake.url, { timeoutMs: 600, idleTimeoutMs: 300, retry: { maxRetries: 0 } });
    fake.on('m/busy', { hang: true, keepAliveEveryMs: 100 });
    const started = Date.now();
    const error = await failure('m/busy');
    expect(error.kind).toBe('timeout');
    expect(error.message).toContain('600 ms limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
  });

  it('times out a stream that falls silent after it started', async () => {
    client = testClient(fake.url, { idleTimeoutMs: 300 });
    const content = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'started' } }] })}\n`;
    fake.on('m/silent', { sse: [content, { pauseMs: 2000 }, 'data: [DONE]'] });
    expect(await failure('m/silent')).toMatchObject({ kind: 'timeout' });
    expect(fake.requestsFor('m/silent')).toHaveLength(1);
  });

  it('aborts the upstream request at once when the caller cancels', async () => {
    client = testClient(fake.url);
    fake.on('m/slow', { answer: 'too late', delayMs: 3000 });
    const abortedBefore = fake.aborted;
    const controller = new AbortController();
    const pending = client.complete(chat('m/slow'), { signal: controller.signal });
    await waitFor(() => fake.requestsFor('m/slow').length === 1);
    const started = Date.now();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(500);
    // The server learns of it once the socket closes.
    await waitFor(() => fake.aborted === abortedBefore + 1);
  });

  it('reuses pooled connections for sequential calls instead of opening one per call', async () => {
    const pooled = await startFakeOpenRouter();
    client = testClient(pooled.url);
    for (let i = 0; i < 10; i++) await client.complete(chat('m/pool'));
    // undici frees a socket a tick after its body ends, so a call made at once may open one more.
    expect(pooled.connections).toBeLessThanOrEqual(2);
    await client.close();
    await pooled.close();
  });

  it('sends a prompt given as parts, a slice at a time, with its length, over pooled connections', async () => {
    const pooled = await startFakeOpenRouter();
    client = testClient(pooled.url);
    const prompt = new TextParts('### Candidate 1\n\n', 'é€😀 "quoted"\n'.repeat(20_000), '\n', 'x'.repeat(50_000));
    for (let i = 0; i < 4; i++) await client.complete({ ...chat('m/parts'), prompt });
    for (const request of pooled.requestsFor('m/parts')) {
      expect(request.body).toMatchObject({ messages: [{ role: 'user', content: prompt.toString() }] });
      expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(request.body)));
    }
    expect(pooled.connections).toBeLessThanOrEqual(2);
    await client.close();
    await pooled.close();
  });
});

describe('usage reports of any shape', () => {
  it('asks for usage both the OpenRouter way and the OpenAI-compatible way', async () => {
    client = testClient(fake.url);
    fake.on('m/usage-request', { answer: 'ok' });
    await client.complete(chat('m/usage-request'));
    expect(fake.requestsFor('m/usage-request')[0]!.body).toMatchObject({
      usage: { include: true },
      stream_options: { include_usage: true },
    });
  });

  it.each([
    ['a string', '"lots"', undefined],
    ['an array', '[1,2]', undefined],
    [
      'overflowing, negative and string fields',
      '{"total_tokens":1e999,"prompt_tokens":-3,"completion_tokens":"many","cost":"0.5"}',
      { cost: 0.5 },
    ],
    [
      'fields of the wrong type in the details',
      '{"total_tokens":7,"completion_tokens_details":{"reasoning_tokens":{"n":1}}}',
      { total_tokens: 7 },
    ],
  ])('keeps the answer when usage is %s', async (_, usage, expected) => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    const model = `m/usage-${usage.length}`;
    const chunk = `{"choices":[{"index":0,"delta":{"content":"the answer"},"finish_reason":"stop"}],"usage":${usage}}`;
    fake.on(model, { sse: [`data: ${chunk}`, '', 'data: [DONE]', ''] });
    const completion = await client.complete(chat(model));
    expect(completion.content).toBe('the answer');
    expect(completion.usage).toEqual(expected);
  });
});

describe('rate-limit waits OpenRouter passes on in the error body', () => {
  const rateLimited = (headers: Record<string, string>) => ({
    status: 429,
    error: { message: 'Rate limit exceeded: free-models-per-min. ', code: 429, metadata: { headers, provider_name: null } },
  });

  it('waits until X-RateLimit-Reset (epoch milliseconds) in metadata.headers before retrying', async () => {
    client = testClient(fake.url);
    const reset = String(Date.now() + 400);
    fake.on('m/reset-ms', rateLimited({ 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset }), {
      answer: 'after the reset',
    });
    await expect(client.complete(chat('m/reset-ms'))).resolves.toMatchObject({ content: 'after the reset', attempts: 2 });
    const [first, second] = fake.requestsFor('m/reset-ms');
    expect(second!.at).toBeGreaterThanOrEqual(Number(reset) - 20);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(300);
  });

  it('reads the header whatever its case, and Retry-After there too', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on('m/reset-case', rateLimited({ 'x-ratelimit-reset': String(Date.now() + 20_000) }));
    fake.on('m/retry-after-case', rateLimited({ 'RETRY-AFTER': '7' }));
    expect((await failure('m/reset-case')).retryAfterMs).toBeGreaterThan(15_000);
    expect((await failure('m/retry-after-case')).retryAfterMs).toBe(7000);
  });

  it('gives no wait for a reset already past, and does not wait for one past the call’s limit', async () => {
    client = testClient(fake.url, { timeoutMs: 1000, retry: { maxRetries: 1, baseDelayMs: 10, maxDelayMs: 10 } });
    fake.on('m/reset-past', rateLimited({ 'X-RateLimit-Reset': String(Date.now() - 60_000) }), { answer: 'at once' });
    await expect(client.complete(chat('m/reset-past'))).resolves.toMatchObject({ attempts: 2 });
    fake.on('m/reset-far', rateLimited({ 'X-RateLimit-Reset': String(Date.now() + 3_600_000) }));
    const started = performance.now();
    const error = await failure('m/reset-far');
    expect(performance.now() - started).toBeLessThan(500);
    expect(error.retryAfterMs).toBeGreaterThan(3_000_000);
    expect(fake.requestsFor('m/reset-far')).toHaveLength(1);
  });

  it('passes the message on without its trailing space, so that no ". ." can follow', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on('m/trailing-space', rateLimited({}));
    expect((await failure('m/trailing-space')).message).toBe('Rate limit exceeded: free-models-per-min.');
  });
});

describe('timeouts that say which limit ran out', () => {
  it('marks a silent stream with code idle_timeout, and the call’s limit without it', async () => {
    client = testClient(fake.url, { timeoutMs: 600, idleTimeoutMs: 200, retry: { maxRetries: 0 } });
    fake.on('m/idle', { hang: true });
    fake.on('m/deadline', { hang: true, keepAliveEveryMs: 50 });
    expect(await failure('m/idle')).toMatchObject({ kind: 'timeout', code: 'idle_timeout' });
    expect((await failure('m/deadline')).code).toBeUndefined();
  });
});

describe('the key never leaves through what an upstream echoes', () => {
  const echo = (respond: (authorization: string) => Behaviour): Behaviour => ({
    fromRequest: (request) => respond(String(request.headers.authorization)),
  });
  const leaks = (value: unknown) => JSON.stringify(value).includes(VALID_KEY) || /Bearer (?!\[redacted\])/.test(JSON.stringify(value));

  /** Everything an UpstreamError carries that could reach a result, a file or a log. */
  const exposed = (error: UpstreamError) => ({
    json: error.toJSON(),
    message: error.message,
    metadata: error.metadata,
    reasoning: error.reasoning,
    stack: error.stack,
  });

  it('redacts the Authorization header echoed in a 400 message and in metadata.raw', async () => {
    client = testClient(fake.url);
    fake.on(
      'm/echo-400',
      echo((authorization) => ({
        status: 400,
        error: {
          code: 400,
          message: `Invalid header: Authorization: ${authorization}`,
          metadata: { raw: `{"headers":{"authorization":"${authorization}"}}`, provider_name: 'Echo' },
        },
      })),
    );
    const error = await failure('m/echo-400');
    expect(leaks(exposed(error))).toBe(false);
    expect(error.message).toContain('Invalid header: Authorization: Bearer [redacted]');
  });

  it('redacts the key echoed in a non-JSON error body, a non-JSON 200 body and a mid-stream error', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on(
      'm/echo-html',
      echo((authorization) => ({ status: 502, body: `<html>proxy saw ${authorization}</html>`, headers: { 'content-type': 'text/html' } })),
    );
    fake.on(
      'm/echo-200',
      echo((authorization) => ({ status: 200, body: `not json: ${authorization}` })),
    );
    const midStream = (authorization: string) =>
      `data: ${JSON.stringify({ error: { code: 'server_error', message: `upstream refused key ${authorization.slice(7)}` }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] })}`;
    fake.on(
      'm/echo-mid',
      echo((authorization) => ({
        sse: [`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Half' } }] })}`, '', midStream(authorization), ''],
      })),
    );
    for (const model of ['m/echo-html', 'm/echo-200', 'm/echo-mid']) {
      const error = await failure(model);
      expect(leaks(exposed(error)), model).toBe(false);
      expect(error.message, model).toContain('[redacted]');
    }
  });

  it('redacts the key where the excerpt of an error body ends inside it', async () => {
    client = testClient(fake.url, { retry: { maxRetries: 0 } });
    fake.on(
      'm/echo-cut',
      echo((authorization) => ({
        status: 500,
        body: `${'x'.repeat(480)} ${authorization.slice(7)}`,
        headers: { 'content-type': 'text/plain' },
      })),
    );
    const error = await failure('m/echo-cut');
    expect(error.message).toMatch(/x \[redacted\]$/);
    expect(error.message).not.toContain(VALID_KEY.slice(0, 12));
  });

  it('redacts the key’s value from an answer and its reasoning, and leaves other text alone', async () => {
    client = testClient(fake.url);
    fake.on(
      'm/echo-content',
      echo((authorization) => ({
        answer: `Your key is ${authorization.slice(7)}. Send it as a Bearer token.`,
        reasoning: `The key: ${authorization.slice(7)}`,
      })),
    );
    const completion = await client.complete(chat('m/echo-content'));
    expect(completion.content).toBe('Your key is [redacted]. Send it as a Bearer token.');
    expect(completion.reasoning).toBe('The key: [redacted]');
  });

  it('keeps the key out of the retry log lines', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    client = testClient(fake.url, { logger });
    fake.on(
      'm/echo-retry',
      echo((authorization) => ({ status: 503, error: { code: 503, message: `overloaded; retry with ${authorization}` } })),
      { answer: 'fine' },
    );
    await client.complete(chat('m/echo-retry'));
    expect(lines.some((line) => line.includes('retrying'))).toBe(true);
    expect(lines.join('\n')).not.toContain(VALID_KEY);
  });
});

describe('limits on the monotonic clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('still retries within the call’s limit when the wall clock jumps an hour ahead between attempts', async () => {
    client = testClient(fake.url, { timeoutMs: 3000 });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const jumpAhead = (): Behaviour => {
      vi.setSystemTime(Date.now() + 3_600_000);
      return { status: 503 };
    };
    fake.on('m/clock-jump', { fromRequest: jumpAhead }, { answer: 'after the jump' });
    await expect(client.complete(chat('m/clock-jump'))).resolves.toMatchObject({ content: 'after the jump', attempts: 2 });
  });

  it('gives every piece of a long answer to a sink as it arrives, keeping only the start in the completion', async () => {
    client = testClient(fake.url);
    const answer = 'word '.repeat(2000);
    fake.on('m/sink', { answer, chunks: 40 });
    const pieces: string[] = [];
    const completion = await client.complete(chat('m/sink'), { sink: { keepChars: 100, write: (piece) => void pieces.push(piece) } });
    expect(completion.content).toBe(answer.slice(0, 100));
    expect(completion.chars).toBe(answer.length);
    expect(pieces.join('')).toBe(answer);
    expect(pieces.length).toBeGreaterThan(1);
  });

  it('redacts the key from what a sink receives, even split across chunks', async () => {
    client = testClient(fake.url);
    fake.on('m/sink-echo', { fromRequest: (request) => ({ answer: `You sent ${request.headers.authorization} to me.`, chunks: 7 }) });
    const pieces: string[] = [];
    const completion = await client.complete(chat('m/sink-echo'), { sink: { keepChars: 5, write: (piece) => void pieces.push(piece) } });
    expect(pieces.join('')).toBe('You sent Bearer [redacted] to me.');
    expect(completion.content).not.toContain(VALID_KEY.slice(0, 5));
  });
});
