import { describe, expect, it } from 'vitest';
import { ChangeSignal, waitsForChange } from '../src/run/change-signal.js';

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

describe('waitsForChange', () => {
  it('waits only for a reader who has seen the latest version, of something not settled, with time to wait', () => {
    expect(waitsForChange(3, 3, 1000, false)).toBe(true);
    expect(waitsForChange(2, 3, 1000, false)).toBe(false); // behind: the change it missed is news now
    expect(waitsForChange(undefined, 3, 1000, false)).toBe(false); // a first look: the state as it is
    expect(waitsForChange(3, 3, 0, false)).toBe(false);
    expect(waitsForChange(3, 3, 1000, true)).toBe(false); // settled: nothing more will come
  });
});
