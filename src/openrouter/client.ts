import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import type * as z from 'zod';
import { Deadline } from '../clock.js';
import type { Config } from '../config/config.js';
import { UpstreamError } from '../errors.js';
import { readText } from './body.js';
import { chatBody, type ChatRequest } from './chat-body.js';
import { parseJson } from './chunk.js';
import { completionFrom, MAX_ANSWER_CHARS, readStream, readWholeBody, type ContentSink, type DecodedCompletion } from './decode.js';
import { badBody, cancelledError, deadlineError, errorFromResponse, idleError, networkError } from './error-map.js';
import { jsonBody } from './json-body.js';
import { Redactor } from './redact.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from './retry.js';

export type { TokenUsage } from './usage.js';
export type { ChatMessage, ChatRequest } from './chat-body.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-call limit. */
  timeoutMs?: number;
  /** Where the answer's text goes as it arrives, redacted; the completion then keeps only its start. */
  sink?: ContentSink;
}

export interface Completion extends DecodedCompletion {
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
  /** The most characters of one answer (or its reasoning) taken before the request is ended; MAX_ANSWER_CHARS unless given (tests give less). */
  maxAnswerChars?: number;
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

export class OpenRouterClient {
  readonly baseUrl: string;
  private readonly retry: RetryPolicy;
  private readonly redact: Redactor;
  /** Loaded on the first request: undici is a megabyte of code the server's start does not need. */
  private http: Promise<{ agent: Agent; request: typeof import('./undici.js').request }> | undefined;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.redact = new Redactor(options.apiKey);
  }

  /** One pool for the whole process. Our own timers govern waiting, so undici's are off. */
  private pool() {
    this.http ??= import('./undici.js').then(({ Agent, request }) => ({
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
    const deadline = Deadline.after(options.timeoutMs ?? this.options.timeoutMs);
    const log = this.options.logger.child({ model: chat.model });
    let retryOf: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const attemptId = randomUUID().slice(0, 8);
      const state = { contentStarted: false };
      try {
        log.debug({ attemptId, retryOf, attempt }, 'upstream request');
        const completion = await this.attempt(chat, deadline, state, options);
        if (completion.cutShort) log.warn({ attemptId, chars: completion.chars }, completion.cutShort);
        return { ...completion, attempts: attempt };
      } catch (caught) {
        const error = caught as UpstreamError;
        const delay = retryDelayMs({ error, attempt, contentStarted: state.contentStarted, msLeft: deadline.msLeft(), policy: this.retry });
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
    { signal, sink }: CallOptions,
  ): Promise<DecodedCompletion> {
    const { agent, request } = await this.pool();
    const redacted = sink && this.redact.stream(sink);
    return this.withLimits(deadline, signal, async (abortSignal, heardFrom) => {
      const body = jsonBody(chatBody(chat));
      const response = await request(`${this.baseUrl}/chat/completions`, {
        method: 'POST',
        dispatcher: agent,
        signal: abortSignal,
        headers: {
          ...this.headers(),
          'content-type': 'application/json',
          'content-length': String(body.length),
          accept: 'text/event-stream',
        },
        // undici sends an iterable body as it is read (its docs/api/Dispatcher.md), though its types name only whole ones.
        body: body.bytes as Buffer,
      });
      heardFrom();
      // undici follows no redirects, so a 3xx is as much an error here as a 4xx.
      if (response.statusCode >= 300) throw await errorFromResponse(response);
      const contentType = String(response.headers['content-type'] ?? '');
      const cap = this.options.maxAnswerChars ?? MAX_ANSWER_CHARS;
      const draft = contentType.includes('text/event-stream')
        ? await readStream(response.body, heardFrom, state, redacted, cap)
        : await readWholeBody(response.body, state, redacted, cap);
      const completion = completionFrom(draft, chat.maxTokens);
      redacted?.end();
      return { ...completion, content: this.redact.secretIn(completion.content), reasoning: this.redact.secretIn(completion.reasoning) };
    });
  }

  /** GET `path` under the base URL as JSON of the given shape (for `doctor`'s endpoints). Throws UpstreamError. */
  async getJson<S extends z.ZodType>(path: string, schema: S, signal?: AbortSignal): Promise<z.infer<S>> {
    const deadline = Deadline.after(Math.min(this.options.timeoutMs, 30_000));
    const { agent, request } = await this.pool();
    return this.withLimits(deadline, signal, async (abortSignal) => {
      const response = await request(`${this.baseUrl}${path}`, {
        method: 'GET',
        dispatcher: agent,
        signal: abortSignal,
        headers: this.headers(),
      });
      if (response.statusCode >= 300) throw await errorFromResponse(response);
      const parsed = schema.safeParse(parseJson(await readText(response.body)));
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
   * network failure, classified by undici's error code. Every error leaves here with
   * the key and any bearer token scrubbed from what the upstream wrote in it.
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
    const deadlineTimer = setTimeout(() => abort('timeout'), deadline.msLeft());
    const idleTimer = setTimeout(() => abort('idle'), this.options.idleTimeoutMs);
    signal?.addEventListener('abort', onCancel, { once: true });
    if (signal?.aborted) onCancel();
    try {
      return await exchange(controller.signal, () => idleTimer.refresh());
    } catch (caught) {
      throw this.redact.error(this.classify(caught, cause, deadline));
    } finally {
      clearTimeout(deadlineTimer);
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onCancel);
    }
  }

  private classify(caught: unknown, cause: AbortCause | undefined, deadline: Deadline): UpstreamError {
    if (cause === 'cancelled') return cancelledError();
    if (cause === 'timeout') return deadlineError(deadline.ms);
    if (cause === 'idle') return idleError(this.options.idleTimeoutMs);
    if (caught instanceof UpstreamError) return caught;
    return networkError(caught, this.baseUrl);
  }
}
