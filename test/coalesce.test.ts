import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CoalescingWriter } from '../src/store/coalesce.js';

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
