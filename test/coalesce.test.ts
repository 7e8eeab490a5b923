import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CoalescingWriter } from '../src/run/coalesce.js';

/** A slow "disk" that records every write it performs, in order. */
function recordingDisk(ms = 20) {
  const performed: Array<[string, string]> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const writer = new CoalescingWriter(async (key, content) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await sleep(ms);
    inFlight--;
    if (content === 'fail') throw new Error(`disk error on ${key}`);
    performed.push([key, content]);
  });
  return { writer, performed, maxInFlight: () => maxInFlight };
}

describe('CoalescingWriter', () => {
  it('writes a burst to one file at most twice: the first content, then only the newest', async () => {
    const { writer, performed, maxInFlight } = recordingDisk();
    await Promise.all(['1', '2', '3', '4', '5'].map((content) => writer.write('run.json', content)));
    expect(performed).toEqual([
      ['run.json', '1'],
      ['run.json', '5'],
    ]);
    expect(maxInFlight()).toBe(1);
  });

  it('resolves a replaced write only once the newer content that replaced it is written', async () => {
    const { writer, performed } = recordingDisk();
    void writer.write('f', 'a');
    const replaced = writer.write('f', 'b');
    void writer.write('f', 'c');
    await replaced;
    expect(performed.at(-1)).toEqual(['f', 'c']);
  });

  it('keeps different files independent, in flight together', async () => {
    const { writer, maxInFlight } = recordingDisk();
    await Promise.all([writer.write('a', '1'), writer.write('b', '1'), writer.write('c', '1')]);
    expect(maxInFlight()).toBe(3);
  });

  it('rejects the callers of a failed write and still performs the write waiting behind it', async () => {
    const { writer, performed } = recordingDisk();
    const failed = writer.write('f', 'fail');
    const next = writer.write('f', 'good');
    await expect(failed).rejects.toThrow('disk error on f');
    await next;
    expect(performed).toEqual([['f', 'good']]);
    await writer.write('f', 'again');
    expect(performed.at(-1)).toEqual(['f', 'again']);
  });
});

/** Whether the file's latest content is known to be on disk, or was given up on. */
async function clean(writer: CoalescingWriter, key: string): Promise<boolean> {
  let flushed = false;
  void writer.flushed(key).then(() => (flushed = true));
  await Promise.resolve();
  return flushed;
}

describe('CoalescingWriter: a write that catches up', () => {
  /** A disk that refuses every write while `full`, and records the times (on the fake clock) of every try. */
  function fullDisk() {
    const state = { full: true, tries: [] as number[], landed: [] as string[] };
    const writer = new CoalescingWriter(
      async (_key, content) => {
        state.tries.push(Date.now());
        if (state.full) throw Object.assign(new Error('no space left'), { code: 'ENOSPC' });
        state.landed.push(content);
      },
      { firstMs: 500, maxMs: 4000 },
    );
    return { writer, state };
  }

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tells its caller of the failure, then tries the content again, 0.5 s and doubling to the cap, until it lands', async () => {
    const { writer, state } = fullDisk();
    const started = Date.now();
    await expect(writer.write('run.json', 'finished', { catchUp: true })).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await clean(writer, 'run.json')).toBe(false);
    let flushed = false;
    void writer.flushed('run.json').then(() => (flushed = true));
    await vi.advanceTimersByTimeAsync(30_000);
    const gaps = state.tries.map((at, i) => at - (state.tries[i - 1] ?? started));
    expect(gaps.slice(0, 6)).toEqual([0, 500, 1000, 2000, 4000, 4000]);
    expect(flushed).toBe(false);

    state.full = false;
    await vi.advanceTimersByTimeAsync(4000);
    expect(state.landed).toEqual(['finished']);
    expect(flushed).toBe(true);
    expect(await clean(writer, 'run.json')).toBe(true);
  });

  it('tries a newer content at once in place of the one waiting to be tried again, which never lands', async () => {
    const { writer, state } = fullDisk();
    await expect(writer.write('run.json', 'step 1', { catchUp: true })).rejects.toThrow();
    state.full = false;
    await writer.write('run.json', 'step 2', { catchUp: true });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.landed).toEqual(['step 2']);
    expect(await clean(writer, 'run.json')).toBe(true);
  });

  it('starts again from 0.5 s after a content has landed', async () => {
    const { writer, state } = fullDisk();
    await expect(writer.write('run.json', 'a', { catchUp: true })).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(1500);
    state.full = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(await clean(writer, 'run.json')).toBe(true);
    state.full = true;
    state.tries.length = 0;
    await expect(writer.write('run.json', 'b', { catchUp: true })).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(500);
    expect(state.tries).toHaveLength(2);
  });

  it('gives up on a write made without catchUp: it is not tried again and the file is clean', async () => {
    const { writer, state } = fullDisk();
    await expect(writer.write('final.md', 'answer')).rejects.toThrow();
    await writer.flushed('final.md');
    expect(await clean(writer, 'final.md')).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.tries).toHaveLength(1);
  });
});
