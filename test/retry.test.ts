import { describe, expect, it } from 'vitest';
import { httpError, UpstreamError } from '../src/errors.js';
import { backoffMs, parseRateLimitReset, parseRetryAfter, retryDelayMs, type RetryPolicy } from '../src/openrouter/retry.js';

const policy: RetryPolicy = { maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 30_000 };
const fixed = (value: number) => () => value;

describe('parseRateLimitReset', () => {
  const now = 1_765_661_640_000;

  it('reads an epoch time in milliseconds, as OpenRouter sends it, as the wait until then', () => {
    expect(parseRateLimitReset('1765661700000', now)).toBe(60_000);
  });

  it('reads an epoch time in seconds the same way', () => {
    expect(parseRateLimitReset('1765661700', now)).toBe(60_000);
  });

  it.each([
    ['a reset already past', '1765661000000'],
    ['a reset right now', String(now)],
    ['no value', undefined],
    ['a blank value', ' '],
    ['text', 'soon'],
    ['zero', '0'],
    ['a negative number', '-5'],
  ])('gives no wait for %s', (_, value) => {
    expect(parseRateLimitReset(value, now)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['5', 5000],
    ['0', 0],
    ['120', 120_000],
    ['1.5', 1500],
    [' 7 ', 7000],
  ])('reads delta-seconds %j as %i ms', (value, ms) => {
    expect(parseRetryAfter(value)).toBe(ms);
  });

  it('reads an HTTP date as the time from `now` until then', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
  });

  it('reads an HTTP date already past as no wait at all', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it('never returns a negative wait', () => {
    expect(parseRetryAfter('-5')).toBe(0);
  });

  it.each([['soon'], ['later please'], [''], ['   '], [undefined]])('returns undefined for %j', (value) => {
    expect(parseRetryAfter(value)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  it('doubles the ceiling with each attempt, scaled by the random draw', () => {
    expect(backoffMs(1, policy, fixed(0.5))).toBe(500);
    expect(backoffMs(2, policy, fixed(0.5))).toBe(1000);
    expect(backoffMs(3, policy, fixed(0.5))).toBe(2000);
  });

  it('never exceeds maxDelayMs, however many attempts', () => {
    expect(backoffMs(30, policy, fixed(0.999_999))).toBeLessThanOrEqual(policy.maxDelayMs);
    expect(backoffMs(30, policy, fixed(0.999_999))).toBeGreaterThan(policy.maxDelayMs - 1);
  });

  it('stays between 0 and the attempt’s ceiling for any draw', () => {
    for (const draw of [0, 0.1, 0.37, 0.5, 0.9, 0.999]) {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        const wait = backoffMs(attempt, policy, fixed(draw));
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('waits nothing when the draw is 0 (full jitter)', () => {
    expect(backoffMs(3, policy, fixed(0))).toBe(0);
  });
});

describe('retryDelayMs', () => {
  const base = { attempt: 1, contentStarted: false, msLeft: 60_000, policy, random: fixed(0.5) };

  it('retries a retryable error with backoff', () => {
    expect(retryDelayMs({ ...base, error: httpError(503, 'no provider available') })).toBe(500);
  });

  it.each([400, 401, 402, 403, 404])('never retries HTTP %i', (status) => {
    expect(retryDelayMs({ ...base, error: httpError(status, 'final') })).toBeUndefined();
  });

  it.each(['timeout', 'bad_body', 'empty', 'truncated', 'cancelled'] as const)('never retries a %s error', (kind) => {
    expect(retryDelayMs({ ...base, error: new UpstreamError({ kind, message: kind }) })).toBeUndefined();
  });

  it('never retries once content has started arriving, even for a retryable error', () => {
    const error = new UpstreamError({ kind: 'network', message: 'socket hang up' });
    expect(retryDelayMs({ ...base, error, contentStarted: true })).toBeUndefined();
  });

  it('retries up to maxRetries times and no more', () => {
    const error = httpError(502, 'model down');
    expect(retryDelayMs({ ...base, error, attempt: 2 })).toBeTypeOf('number');
    expect(retryDelayMs({ ...base, error, attempt: 3 })).toBeUndefined();
    expect(retryDelayMs({ ...base, error, attempt: 1, policy: { ...policy, maxRetries: 0 } })).toBeUndefined();
  });

  it('does not retry when the wait would end past the deadline', () => {
    const error = httpError(503, 'busy');
    // Backoff for attempt 1 with a draw of 0.5 is 500 ms.
    expect(retryDelayMs({ ...base, error, msLeft: 400 })).toBeUndefined();
    expect(retryDelayMs({ ...base, error, msLeft: 500 })).toBeUndefined();
    expect(retryDelayMs({ ...base, error, msLeft: 501 })).toBe(500);
  });

  it('does not retry when the server’s Retry-After would end past the deadline', () => {
    const error = httpError(429, 'slow down', { retryAfterMs: 10_000 });
    expect(retryDelayMs({ ...base, error, msLeft: 5_000 })).toBeUndefined();
  });

  it('prefers the error’s retryAfterMs over backoff', () => {
    const error = httpError(429, 'slow down', { retryAfterMs: 7000 });
    expect(retryDelayMs({ ...base, error, random: fixed(0.01) })).toBe(7000);
  });

  it('honours a Retry-After of zero as “retry now” rather than falling back to backoff', () => {
    const error = httpError(429, 'slow down', { retryAfterMs: 0 });
    expect(retryDelayMs({ ...base, error, random: fixed(0.99) })).toBe(0);
  });
});
