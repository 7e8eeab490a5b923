import { describe, expect, it } from 'vitest';
import { freeBytes } from '../src/text/free-bytes.js';

describe('freeBytes', () => {
  it('frees a buffer that is its whole ArrayBuffer: it is empty after', () => {
    const bytes = Buffer.from('x'.repeat(40_000));
    freeBytes(bytes);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(bytes.length).toBe(0);
  });

  it('frees the whole ArrayBuffer under a part of it, and leaves a slice of Node’s pool as it was', () => {
    const larger = Buffer.alloc(10_000, 'y');
    freeBytes(larger.subarray(0, 100));
    expect(larger.length).toBe(0);
    const pooled = Buffer.from('small');
    freeBytes(pooled);
    expect(pooled.toString()).toBe('small');
  });
});
