import { describe, expect, it } from 'vitest';
import { ChangeSignal } from '../src/run/change-signal.js';

const settledWithin = (promise: Promise<void>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('ChangeSignal', () => {
  it('wakes a reader at once for a change it has not seen yet, so a change between reading and waiting is never missed', async () => {
    const signal = new ChangeSignal();
    const seen = signal.version;
    signal.notify();
    expect(await settledWithin(signal.wait(seen), 50)).toBe(true);
  });

  it('waits for the next change when the reader has seen the last one', async () => {
    const signal = new ChangeSignal();
    signal.notify();
    const waiting = signal.wait(signal.version);
    expect(await settledWithin(waiting, 50)).toBe(false);
    signal.notify();
    expect(await settledWithin(waiting, 50)).toBe(true);
    expect(await settledWithin(signal.wait(), 50)).toBe(false);
  });
});
