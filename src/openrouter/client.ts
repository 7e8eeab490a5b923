import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Agent, Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { UpstreamError, httpError } from '../errors.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry.js';
import { completionBodySchema, errorBodySchema, type CompletionBody, type ErrorObject, type UsageBody } from './schemas.js';
import { sseData } from './sse.js';

export interface ChatRequest {
  model: string;
  prompt: string;
  temperature: number;
  maxTokens: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-call limit (the synthesizer gets what is left of the budget). */
  timeoutMs?: number;
}

export interface TokenUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  reasoning_tokens?: number;
  total_tokens?: number;
  /** In credits (US dollars), as OpenRouter reports it. */
  cost?: number;
}

export interface Completion {
  content: string;
  /** The model's reasoning, kept for the record, never fed to synthesis. */
  reasoning: string;
  finishReason: string | undefined;
  /** The answer stopped at max_tokens. */
  truncated: boolean;
  usage: TokenUsage | undefined;
  provider: string | undefined;
  attempts: number;
}

export interface ClientOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  /** Longest silence allowed between stream chunks (keep-alive comments count). */
  idleTimeoutMs: number;
  /** Connections per origin: at least the concurrency limit, so nobody waits for a socket. */
  maxConnections: number;
  logger: Logger;
  retry?: Partial<RetryPolicy>;
}

// X-Title is the older name of X-OpenRouter-Title; both are honoured.
const ATTRIBUTION = {
  'HTTP-Referer': 'https://www.npmjs.com/package/parallel-llm-mcp',
  'X-OpenRouter-Title': 'parallel-llm-mcp',
  'X-Title': 'parallel-llm-mcp',
};

type AbortCause = 'timeout' | 'idle' | 'cancelled';

/** When a call must be over, and the limit it was given (for the message). */
interface Deadline {
  at: number;
  limitMs: number;
}

/** The answer as it builds up, from one JSON body or many stream chunks. */
interface Draft {
  content: string;
  reasoning: string;
  finishReason: string | undefined;
  usage: UsageBody | undefined;
  error: ErrorObject | undefined;
  provider: string | undefined;
}

export class OpenRouterClient {
  readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  /** Loaded on the first request: undici is a megabyte of code the server's start does not need. */
  private http: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  /** One pool for the whole process. Our own timers govern waiting, so undici's are off. */
  private pool() {
    this.http ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        connections: this.options.maxConnections,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
    }));
    return this.http;
  }

  static fromConfig(config: Config, logger: Logger): OpenRouterClient {
    return new OpenRouterClient({
      apiKey: config.apiKey,
      baseUrl: config.baseUrl,
      timeoutMs: config.timeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      maxConnections: config.maxConcurrency,
      logger,
      retry: { maxRetries: config.maxRetries },
    });
  }

  /** One chat completion, streamed, retried where that is safe. Throws UpstreamError. */
  async complete(chat: ChatRequest, options: CallOptions = {}): Promise<Completion> {
    const limitMs = options.timeoutMs ?? this.options.timeoutMs;
    const deadline = { at: Date.now() + limitMs, limitMs };
    const log = this.options.logger.child({ model: chat.model });
    let retryOf: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const attemptId = randomUUID().slice(0, 8);
      const state = { contentStarted: false };
      try {
        log.debug({ attemptId, retryOf, attempt }, 'upstream request');
        const draft = await this.attempt(chat, deadline, state, options.signal);
        return { ...completionFrom(draft, chat.maxTokens), attempts: attempt };
      } catch (caught) {
        const error = caught as UpstreamError;
        const delay = retryDelayMs({
          error,
          attempt,
          contentStarted: state.contentStarted,
          msLeft: deadline.at - Date.now(),
          policy: this.retry,
        });
        if (delay === undefined) throw error;
        log.warn({ attemptId, attempt, kind: error.kind, status: error.status, delayMs: delay }, `retrying: ${error.message}`);
        retryOf = attemptId;
        await sleep(delay, undefined, { signal: options.signal }).catch(() => {
          throw cancelledError();
        });
      }
    }
  }

  async close(): Promise<void> {
    if (!this.http) return;
    const { agent } = await this.http;
    // Graceful close waits for running requests; shutdown must not, so destroy after a moment.
    const timer = setTimeout(() => void agent.destroy(), 500);
    await agent.close().catch(() => undefined);
    clearTimeout(timer);
  }

  private async attempt(
    chat: ChatRequest,
    deadline: Deadline,
    state: { contentStarted: boolean },
    signal: AbortSignal | undefined,
  ): Promise<Draft> {
    const { agent, request } = await this.pool();
    return this.withLimits(deadline, signal, async (abortSignal, heardFrom) => {
      const response = await request(`${this.baseUrl}/chat/completions`, {
        method: 'POST',
        dispatcher: agent,
        signal: abortSignal,
        headers: { ...this.headers(), 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          model: chat.model,
          messages: [{ role: 'user', content: chat.prompt }],
          temperature: chat.temperature,
          max_tokens: chat.maxTokens,
          stream: true,
          usage: { include: true },
        }),
      });
      heardFrom();
      // undici follows no redirects, so a 3xx is as much an error here as a 4xx.
      if (response.statusCode >= 300) throw await errorFromResponse(response);
      const contentType = String(response.headers['content-type'] ?? '');
      if (contentType.includes('text/event-stream')) {
        return readStream(response.body, heardFrom, state);
      }
      return readWholeBody(response.body);
    });
  }

  /** GET `path` under the base URL as JSON of the given shape (for `doctor`'s endpoints). Throws UpstreamError. */
  async getJson<S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal): Promise<z.infer<S>> {
    const limitMs = Math.min(this.options.timeoutMs, 30_000);
    const deadline = { at: Date.now() + limitMs, limitMs };
    const { agent, request } = await this.pool();
    return this.withLimits(deadline, signal, async (abortSignal) => {
      const response = await request(`${this.baseUrl}${path}`, {
        dispatcher: agent,
        signal: abortSignal,
        headers: this.headers(),
      });
      if (response.statusCode >= 300) throw await errorFromResponse(response);
      const parsed = schema.safeParse(parseJson(await response.body.text()));
      if (!parsed.success) throw badBody(`unexpected answer from ${path}: ${parsed.error.issues[0]?.message}`);
      return parsed.data;
    });
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.options.apiKey}`, ...ATTRIBUTION };
  }

  /**
   * Runs one HTTP exchange under the call's deadline, the idle limit and the caller's
   * signal. Whichever fires first decides the error; anything else unexpected is a
   * network failure, classified by undici's error code.
   */
  private async withLimits<T>(
    deadline: Deadline,
    signal: AbortSignal | undefined,
    exchange: (signal: AbortSignal, heardFrom: () => void) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let cause: AbortCause | undefined;
    const abort = (why: AbortCause) => {
      cause ??= why;
      controller.abort();
    };
    const onCancel = () => abort('cancelled');
    const deadlineTimer = setTimeout(() => abort('timeout'), Math.max(0, deadline.at - Date.now()));
    const idleTimer = setTimeout(() => abort('idle'), this.options.idleTimeoutMs);
    signal?.addEventListener('abort', onCancel, { once: true });
    if (signal?.aborted) onCancel();
    try {
      return await exchange(controller.signal, () => idleTimer.refresh());
    } catch (caught) {
      if (cause === 'cancelled') throw cancelledError();
      if (cause === 'timeout') throw new UpstreamError({ kind: 'timeout', message: `no complete answer within the ${deadline.limitMs} ms limit` });
      if (cause === 'idle') throw new UpstreamError({ kind: 'timeout', message: `the stream was silent for ${this.options.idleTimeoutMs} ms` });
      if (caught instanceof UpstreamError) throw caught;
      throw networkError(caught, this.baseUrl);
    } finally {
      clearTimeout(deadlineTimer);
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onCancel);
    }
  }
}

async function readStream(
  body: Dispatcher.ResponseData['body'],
  heardFrom: () => void,
  state: { contentStarted: boolean },
): Promise<Draft> {
  const draft = emptyDraft();
  body.setEncoding('utf8');
  const chunks = (async function* () {
    for await (const chunk of body) {
      heardFrom();
      yield chunk as string;
    }
  })();
  let done = false;
  try {
    for await (const data of sseData(chunks)) {
      // Read on to the end after [DONE]: leaving the loop early would destroy the body,
      // and with it a connection the pool could reuse.
      if (done || data.trim() === '[DONE]') {
        done = true;
        continue;
      }
      absorb(draft, parseBody(data));
      if (draft.content.length > 0) state.contentStarted = true;
      // A mid-stream error ends the answer: never hand a half answer to synthesis.
      if (draft.error || draft.finishReason === 'error') return draft;
    }
  } catch (caught) {
    // The answer was complete at [DONE]; what happens to the connection after it does not matter.
    if (done) return draft;
    throw caught;
  } finally {
    // Leaving early closes the connection, which tells OpenRouter to stop generating.
    if (!done && !body.destroyed) body.destroy();
  }
  if (!done && draft.finishReason === undefined) {
    // The connection ended cleanly, but the answer did not: a proxy cut it short.
    throw new UpstreamError({ kind: 'network', message: 'the stream ended before the answer was complete (no finish_reason, no [DONE])' });
  }
  return draft;
}

async function readWholeBody(body: Dispatcher.ResponseData['body']): Promise<Draft> {
  const draft = emptyDraft();
  absorb(draft, parseBody(await body.text()));
  return draft;
}

function emptyDraft(): Draft {
  return { content: '', reasoning: '', finishReason: undefined, usage: undefined, error: undefined, provider: undefined };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badBody(`the answer was not JSON: ${JSON.stringify(text.slice(0, 120))}`);
  }
}

function parseBody(text: string): CompletionBody {
  const parsed = completionBodySchema.safeParse(parseJson(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badBody(`the answer did not have the documented shape (${issue?.path.join('.')}: ${issue?.message})`);
  }
  return parsed.data;
}

/** Folds one body or chunk into the draft. Only the first choice is read: we ask for one. */
function absorb(draft: Draft, body: CompletionBody): void {
  const choice = body.choices?.[0];
  const part = choice?.delta ?? choice?.message;
  draft.content += part?.content ?? '';
  draft.reasoning += part?.reasoning ?? '';
  draft.finishReason = choice?.finish_reason ?? draft.finishReason;
  draft.error = body.error ?? choice?.error ?? draft.error;
  draft.usage = body.usage ?? draft.usage;
  draft.provider = body.provider ?? draft.provider;
}

/** The draft as a completion, or the typed failure it really is. */
function completionFrom(draft: Draft, maxTokens: number): Omit<Completion, 'attempts'> {
  if (draft.error) throw errorFromObject(draft.error);
  if (draft.finishReason === 'error') {
    throw new UpstreamError({ kind: 'provider', message: `the provider${draft.provider ? ` (${draft.provider})` : ''} stopped with finish_reason "error"` });
  }
  if (draft.content.trim() === '') {
    if (draft.finishReason === 'length') {
      throw new UpstreamError({
        kind: 'truncated',
        message: `max_tokens (${maxTokens}) ran out before any answer${draft.reasoning ? `, after ${draft.reasoning.length} characters of reasoning` : ''}`,
        reasoning: draft.reasoning,
      });
    }
    throw new UpstreamError({ kind: 'empty', message: `the model returned no content (finish_reason: ${draft.finishReason ?? 'none'})` });
  }
  return {
    content: draft.content,
    reasoning: draft.reasoning,
    finishReason: draft.finishReason,
    truncated: draft.finishReason === 'length',
    usage: draft.usage ? tokenUsage(draft.usage) : undefined,
    provider: draft.provider,
  };
}

function tokenUsage(usage: UsageBody): TokenUsage {
  const entries = {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens,
    total_tokens: usage.total_tokens,
    cost: usage.cost,
  };
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => typeof value === 'number'));
}

async function errorFromResponse(response: Dispatcher.ResponseData): Promise<UpstreamError> {
  const text = await response.body.text().catch(() => '');
  const parsed = errorBodySchema.safeParse(safeJson(text));
  const headerRetryAfterMs = parseRetryAfter(headerValue(response.headers['retry-after']));
  if (!parsed.success) {
    return httpError(response.statusCode, text.trim().slice(0, 500) || `HTTP ${response.statusCode}`, { retryAfterMs: headerRetryAfterMs });
  }
  return errorFromObject(parsed.data.error, { status: response.statusCode, retryAfterMs: headerRetryAfterMs });
}

/**
 * An OpenRouter error object, from an error response, a 200 body or a stream chunk.
 * `response` carries the HTTP status and Retry-After header when there was an error response.
 */
function errorFromObject(error: ErrorObject, response: { status?: number; retryAfterMs?: number } = {}): UpstreamError {
  const metadata = error.metadata ?? undefined;
  const status = response.status ?? (typeof error.code === 'number' ? error.code : (error.http_status ?? undefined));
  const init = {
    message: withProviderDetail(error.message?.trim() ? error.message : 'the upstream reported an error without a message', metadata),
    metadata,
    code: error.code == null ? undefined : String(error.code),
    retryAfterMs: response.retryAfterMs ?? hintedRetryAfterMs(error),
    retryableHint: error.availability?.retryable ?? undefined,
  };
  if (status !== undefined && status >= 400) return httpError(status, init.message, init);
  return new UpstreamError({ kind: 'provider', ...init });
}

/** "Provider returned error" says little; the provider's own words sit in metadata.raw. */
function withProviderDetail(message: string, metadata: Record<string, unknown> | undefined): string {
  const raw = metadata?.raw;
  const detail = typeof raw === 'string' ? raw : raw === undefined ? undefined : JSON.stringify(raw);
  const provider = typeof metadata?.provider_name === 'string' ? metadata.provider_name : undefined;
  if (!detail || message.includes(detail)) return message;
  return `${message} (${provider ?? 'provider'}: ${detail.slice(0, 300)})`;
}

/** The wait OpenRouter suggests in the body: availability.retry_after, or the provider's in metadata. */
function hintedRetryAfterMs(error: ErrorObject): number | undefined {
  const metadata = error.metadata ?? {};
  const headers = metadata.headers as Record<string, unknown> | undefined;
  const seconds = [error.availability?.retry_after, metadata.retry_after_seconds, metadata.retry_after].find(
    (value): value is number => typeof value === 'number' && value >= 0,
  );
  if (seconds !== undefined) return seconds * 1000;
  const header = headers?.['Retry-After'] ?? headers?.['retry-after'];
  return typeof header === 'string' ? parseRetryAfter(header) : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const NETWORK_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved (temporary DNS failure)',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CONNECT_TIMEOUT: 'could not connect in time',
  UND_ERR_CLOSED: 'the connection pool is closed',
  UND_ERR_DESTROYED: 'the connection pool is closed',
};

/** undici refusing the request itself (a bad header, say): trying again cannot help. */
const REQUEST_REFUSED = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_URL']);

function networkError(caught: unknown, baseUrl: string): UpstreamError {
  const code = errorCode(caught);
  const description = (code && NETWORK_MESSAGES[code]) ?? (caught instanceof Error ? caught.message : String(caught));
  return new UpstreamError({
    kind: 'network',
    code,
    message: `${description} (${code ?? 'no code'}, ${new URL(baseUrl).host})`,
    retryableHint: code !== undefined && REQUEST_REFUSED.has(code) ? false : undefined,
    cause: caught,
  });
}

/** undici wraps system errors; the code may sit on the error or on its cause. */
function errorCode(caught: unknown): string | undefined {
  for (let current = caught, depth = 0; current && depth < 4; current = (current as Error).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function badBody(message: string): UpstreamError {
  return new UpstreamError({ kind: 'bad_body', message });
}

function cancelledError(): UpstreamError {
  return new UpstreamError({ kind: 'cancelled', message: 'cancelled before the model answered' });
}
