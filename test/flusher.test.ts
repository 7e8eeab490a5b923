import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Disk, FLUSH_DELAY_MS } from '../src/store/disk.js';

/** A durable disk that records the files it flushes instead of flushing them (failing each, with `fails`). */
class FlushRecorder extends Disk {
  readonly flushed: string[] = [];

  constructor(private readonly fails: boolean) {
    super('/nowhere', 5000, true);
  }

  override limit<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (!what.startsWith('flushing ')) return super.limit(what, work);
    this.flushed.push(what.slice('flushing '.length));
    return this.fails ? Promise.reject(new Error(`EIO ${what}`)) : Promise.resolve(undefined as T);
  }
}

describe('a durable disk flushes what it publishes', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const recording = (fails = false) => {
    const flusher = new FlushRecorder(fails);
    return { flusher, flushed: flusher.flushed };
  };

  it('flushes a file rewritten again and again once, when its delay is up, and not before', async () => {
    const { flusher, flushed } = recording();
    for (let i = 0; i < 9; i++) {
      flusher.published('run/run.json');
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS / 10);
    }
    expect(flushed).toEqual([]);
    await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS / 10);
    expect(flushed).toEqual(['run/run.json']);
  });

  it('flushes a version published after the last flush began once more', async () => {
    const { flusher, flushed } = recording();
    flusher.published('run.json');
    await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
    flusher.published('run.json');
    await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
    expect(flushed).toEqual(['run.json', 'run.json']);
  });

  it('flushes each file on its own', async () => {
    const { flusher, flushed } = recording();
    flusher.published('a/final.md');
    flusher.published('a/run.json');
    flusher.published('a/final.md');
    await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
    expect(flushed.sort()).toEqual(['a/final.md', 'a/run.json']);
  });

  it('lets a failed flush go, and flushes the file again when it is published again', async () => {
    const { flusher, flushed } = recording(true);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      flusher.published('run.json');
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
      flusher.published('run.json');
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
    } finally {
      process.off('unhandledRejection', unhandled);
    }
    expect(flushed).toEqual(['run.json', 'run.json']);
    expect(unhandled).not.toHaveBeenCalled();
  });

  it('never keeps the process alive for a flush', () => {
    vi.useRealTimers();
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    recording().flusher.published('run.json');
    expect(timers()).toBe(before);
  });
});
