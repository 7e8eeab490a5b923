import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleStop, type HostLoad } from '../src/host/idle.js';

const IDLE_MS = 10_000;

describe('the run host’s idle stop', () => {
  let load: HostLoad;
  let stops: number;
  let idle: IdleStop;

  beforeEach(() => {
    vi.useFakeTimers();
    load = { clients: 0, running: 0 };
    stops = 0;
    idle = new IdleStop(
      IDLE_MS,
      () => load,
      () => stops++,
    );
  });
  afterEach(() => vi.useRealTimers());

  /** The host stops `ms` from now, not a moment before. */
  function expectStopAfter(ms: number): void {
    vi.advanceTimersByTime(ms - 1);
    expect(stops).toBe(0);
    vi.advanceTimersByTime(1);
    expect(stops).toBe(1);
  }

  it('stops a host with no client and no run once it has been so for the idle time, not before', () => {
    idle.check();
    expectStopAfter(IDLE_MS);
  });

  it('sets no timer at all while clients wait with no run, and counts the idle time from the last client’s leaving', () => {
    load.clients = 2;
    idle.check();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5 * IDLE_MS);
    load.clients = 0;
    idle.check();
    expectStopAfter(IDLE_MS);
  });

  it('keeps a host whose runs go on with no client, and stops it the idle time after they end', () => {
    load.running = 1;
    idle.check();
    vi.advanceTimersByTime(3 * IDLE_MS);
    expect(stops).toBe(0);
    load.running = 0;
    vi.advanceTimersByTime(1000);
    expectStopAfter(IDLE_MS);
  });

  it('looks at most every 50 ms while runs run, however short the idle time set', () => {
    let looks = 0;
    const short = new IdleStop(
      1,
      () => {
        looks++;
        return { clients: 0, running: 1 };
      },
      () => stops++,
    );
    short.check();
    vi.advanceTimersByTime(1000);
    expect(looks).toBe(1 + 1000 / 50);
    expect(stops).toBe(0);
  });

  it('does not stop a host that a client reached after the timer was set, whoever forgot to say so', () => {
    idle.check();
    load.clients = 1;
    vi.advanceTimersByTime(IDLE_MS);
    expect(stops).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
