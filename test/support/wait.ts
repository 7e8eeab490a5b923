import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `condition` every 10 ms until it holds; fails the test after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Settles with `promise`, or rejects once `ms` have passed: a test's own limit on a wait that might never end. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  const limit = new AbortController();
  const late = sleep(ms, undefined, { signal: limit.signal }).then(() => Promise.reject(new Error(`not settled within ${ms} ms`)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    limit.abort();
  }
}
