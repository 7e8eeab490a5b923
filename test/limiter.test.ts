import { describe, expect, it } from 'vitest';
import { createLimiter } from '../src/run/limiter.js';

/** A promise with its resolve and reject on the outside, to hold a task open. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Lets every queued microtask and the next macrotask run. */
const settle = () => sleep(0);

describe('createLimiter', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects a concurrency of %s with a TypeError', (concurrency) => {
    expect(() => createLimiter(concurrency)).toThrow(TypeError);
  });

  it('accepts a concurrency of 1', () => {
    expect(() => createLimiter(1)).not.toThrow();
  });

  it('never runs more than `concurrency` tasks at once, and does reach that many', async () => {
    const limiter = createLimiter(3);
    let running = 0;
    let maxRunning = 0;
    let maxActiveSeen = 0;
    const delays = [7, 1, 4, 0, 9, 2, 5, 3, 8, 1, 6, 0];
    const results = await Promise.all(
      delays.map((delay, i) =>
        limiter.run(async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          maxActiveSeen = Math.max(maxActiveSeen, limiter.activeCount);
          await sleep(delay);
          running--;
          return i;
        }),
      ),
    );
    expect(maxRunning).toBe(3);
    expect(maxActiveSeen).toBe(3);
    expect(results).toEqual(delays.map((_, i) => i));
    expect(limiter.activeCount).toBe(0);
    expect(limiter.pendingCount).toBe(0);
  });

  it('passes a task’s error to its caller and keeps running the queue after it', async () => {
    const limiter = createLimiter(1);
    const boom = new Error('boom');
    const failing = limiter.run(async () => {
      await sleep(1);
      throw boom;
    });
    const next = limiter.run(async () => 'next ran');
    await expect(failing).rejects.toBe(boom);
    await expect(next).resolves.toBe('next ran');
    expect(limiter.activeCount).toBe(0);
  });

  it('frees the slot of a task that throws synchronously instead of returning a promise', async () => {
    const limiter = createLimiter(1);
    const boom = new Error('sync boom');
    const failing = limiter.run((): Promise<never> => {
      throw boom;
    });
    const next = limiter.run(async () => 'next ran');
    await expect(failing).rejects.toBe(boom);
    await expect(next).resolves.toBe('next ran');
  });

  it('starts queued tasks in the order they were queued (FIFO)', async () => {
    const limiter = createLimiter(1);
    const gate = deferred();
    const order: number[] = [];
    const blocker = limiter.run(() => gate.promise);
    const queued = [1, 2, 3, 4, 5].map((id) =>
      limiter.run(async () => {
        order.push(id);
        await sleep(5 - id);
      }),
    );
    expect(limiter.pendingCount).toBe(5);
    gate.resolve();
    await Promise.all([blocker, ...queued]);
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });

  it('runs an `urgent` task before tasks that were queued earlier', async () => {
    const limiter = createLimiter(1);
    const gate = deferred();
    const order: string[] = [];
    const record = (name: string) => async () => {
      order.push(name);
    };
    const blocker = limiter.run(() => gate.promise);
    const a = limiter.run(record('a'));
    const b = limiter.run(record('b'));
    const urgent = limiter.run(record('urgent'), { urgent: true });
    gate.resolve();
    await Promise.all([blocker, a, b, urgent]);
    expect(order).toEqual(['urgent', 'a', 'b']);
  });

  it('removes a queued task whose signal aborts, never runs it, and rejects with the signal’s reason', async () => {
    const limiter = createLimiter(1);
    const gate = deferred();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    let abortedTaskRan = false;
    const order: string[] = [];

    const blocker = limiter.run(() => gate.promise);
    const doomed = limiter.run(
      async () => {
        abortedTaskRan = true;
      },
      { signal: controller.signal },
    );
    const after = limiter.run(async () => {
      order.push('after');
    });
    expect(limiter.pendingCount).toBe(2);

    controller.abort(reason);
    await expect(doomed).rejects.toBe(reason);
    expect(limiter.pendingCount).toBe(1);

    gate.resolve();
    await Promise.all([blocker, after]);
    expect(abortedTaskRan).toBe(false);
    expect(order).toEqual(['after']);
    expect(limiter.activeCount).toBe(0);
    expect(limiter.pendingCount).toBe(0);
  });

  it('rejects at once, without running the task, when the signal is already aborted', async () => {
    const limiter = createLimiter(2);
    const reason = new Error('already gone');
    let ran = false;
    const run = limiter.run(
      async () => {
        ran = true;
      },
      { signal: AbortSignal.abort(reason) },
    );
    await expect(run).rejects.toBe(reason);
    expect(ran).toBe(false);
    expect(limiter.activeCount).toBe(0);
  });

  it('ignores an abort that comes after the task has started', async () => {
    const limiter = createLimiter(1);
    const controller = new AbortController();
    const gate = deferred<string>();
    const run = limiter.run(() => gate.promise, { signal: controller.signal });
    await settle();
    controller.abort(new Error('too late'));
    gate.resolve('finished');
    await expect(run).resolves.toBe('finished');
    expect(limiter.activeCount).toBe(0);
  });

  it('reports activeCount and pendingCount as tasks start and finish', async () => {
    const limiter = createLimiter(2);
    expect([limiter.activeCount, limiter.pendingCount]).toEqual([0, 0]);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const runs = gates.map((gate) => limiter.run(() => gate.promise));
    expect([limiter.activeCount, limiter.pendingCount]).toEqual([2, 2]);

    gates[0]!.resolve();
    await settle();
    expect([limiter.activeCount, limiter.pendingCount]).toEqual([2, 1]);

    gates[1]!.resolve();
    gates[2]!.resolve();
    await settle();
    expect([limiter.activeCount, limiter.pendingCount]).toEqual([1, 0]);

    gates[3]!.resolve();
    await Promise.all(runs);
    expect([limiter.activeCount, limiter.pendingCount]).toEqual([0, 0]);
  });
});
