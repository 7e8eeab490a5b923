import type { UpstreamError } from '../errors.js';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** `Retry-After` as milliseconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * `X-RateLimit-Reset` as milliseconds to wait: an epoch time in milliseconds (OpenRouter)
 * or seconds (others). A reset already past gives no wait; one far off is left for
 * retryDelayMs to refuse against the call's deadline.
 */
export function parseRateLimitReset(value: string | undefined, now = Date.now()): number | undefined {
  const reset = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(reset) || reset <= 0) return undefined;
  const resetAtMs = reset >= EPOCH_MS_FROM ? reset : reset * 1000;
  return resetAtMs > now ? resetAtMs - now : undefined;
}

/** Epoch times in seconds stay below this until the year 33658; in milliseconds they passed it in 2001. */
const EPOCH_MS_FROM = 1e12;

/** Exponential backoff with full jitter: a random wait up to base * 2^(attempt-1). */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * random());
}

/**
 * How long to wait before attempt `attempt + 1`, or undefined when there must be no
 * retry: the error is final, content had started, retries are spent, or the wait would
 * end past the call's deadline. The server's own hint (Retry-After) wins over backoff.
 */
export function retryDelayMs(options: {
  error: UpstreamError;
  attempt: number;
  contentStarted: boolean;
  msLeft: number;
  policy: RetryPolicy;
  random?: () => number;
}): number | undefined {
  const { error, attempt, contentStarted, msLeft, policy, random } = options;
  if (!error.retryable || contentStarted || attempt > policy.maxRetries) return undefined;
  const delay = error.retryAfterMs ?? backoffMs(attempt, policy, random);
  return delay < msLeft ? delay : undefined;
}
