import type { Dispatcher } from 'undici';
import { UpstreamError, httpError } from '../errors.js';
import { readText } from './body.js';
import { parseRateLimitReset, parseRetryAfter } from './retry.js';
import { errorBodySchema, type ErrorObject } from './schemas.js';

const MAX_MESSAGE_CHARS = 2000;

/** The error an HTTP error response stands for, with OpenRouter's own message when the body has one. */
export async function errorFromResponse(response: Dispatcher.ResponseData): Promise<UpstreamError> {
  const text = await readText(response.body).catch(() => '');
  const parsed = errorBodySchema.safeParse(safeJson(text));
  const headers = response.headers;
  const retryAfterMs =
    parseRetryAfter(headerValue(headers['retry-after'])) ?? parseRateLimitReset(headerValue(headers['x-ratelimit-reset']));
  if (!parsed.success) {
    return httpError(response.statusCode, text.trim().slice(0, 500).trimEnd() || `HTTP ${response.statusCode}`, { retryAfterMs });
  }
  return errorFromObject(parsed.data.error, { status: response.statusCode, retryAfterMs });
}

/**
 * An OpenRouter error object, from an error response, a 200 body or a stream chunk.
 * `response` carries the HTTP status and header wait when there was an error response.
 */
export function errorFromObject(error: ErrorObject, response: { status?: number; retryAfterMs?: number } = {}): UpstreamError {
  const metadata = error.metadata ?? undefined;
  const status = response.status ?? (typeof error.code === 'number' ? error.code : (error.http_status ?? undefined));
  // An upstream's message goes into every result and file: a runaway one is cut.
  const message = error.message?.trim().slice(0, MAX_MESSAGE_CHARS) || 'the upstream reported an error without a message';
  const init = {
    message: withProviderDetail(message, metadata),
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
  const detail = (typeof raw === 'string' ? raw : raw === undefined ? '' : JSON.stringify(raw)).trim();
  const provider = typeof metadata?.provider_name === 'string' ? metadata.provider_name : undefined;
  if (!detail || message.includes(detail)) return message;
  return `${message} (${provider ?? 'provider'}: ${detail.slice(0, 300)})`;
}

/**
 * The wait the error body suggests: OpenRouter's availability.retry_after, the provider's
 * in metadata, or the provider's rate-limit headers OpenRouter passes on in metadata.headers.
 */
function hintedRetryAfterMs(error: ErrorObject): number | undefined {
  const metadata = error.metadata ?? {};
  const seconds = [error.availability?.retry_after, metadata.retry_after_seconds, metadata.retry_after].find(
    (value): value is number => typeof value === 'number' && value >= 0,
  );
  if (seconds !== undefined) return seconds * 1000;
  const headers = metadata.headers;
  return parseRetryAfter(headerIn(headers, 'retry-after')) ?? parseRateLimitReset(headerIn(headers, 'x-ratelimit-reset'));
}

/** A header from a JSON object of headers, whatever the case of its name. */
function headerIn(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
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

/** A failure of the connection itself, classified by undici's error code. */
export function networkError(caught: unknown, baseUrl: string): UpstreamError {
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

export function badBody(message: string): UpstreamError {
  return new UpstreamError({ kind: 'bad_body', message });
}

export function cancelledError(): UpstreamError {
  return new UpstreamError({ kind: 'cancelled', message: 'cancelled before the model answered' });
}

export function deadlineError(limitMs: number): UpstreamError {
  return new UpstreamError({ kind: 'timeout', message: `no complete answer within the ${limitMs} ms limit` });
}

/** Distinct by its code, so that advice can name the idle limit rather than the call's. */
export function idleError(idleMs: number): UpstreamError {
  return new UpstreamError({ kind: 'timeout', code: 'idle_timeout', message: `the stream was silent for ${idleMs} ms` });
}
