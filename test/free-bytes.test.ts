import { describe, expect, it } from 'vitest';
import { freeBytes } from '../src/free-bytes.js';

describe('freeBytes', () => {
  it('frees a buffer that is its whole ArrayBuffer: it is empty after', () => {
    const bytes = Buffer.from('x'.repeat(40_000));
    freeBytes(bytes);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(bytes.length).toBe(0);
  });

  it('leaves a slice of Node’s pool, and a part of a larger buffer, as they were', () => {
    const pooled = Buffer.from('small');
    const larger = Buffer.alloc(10_000, 'y');
    const part = larger.subarray(0, 100);
    freeBytes(pooled);
    freeBytes(part);
    expect(pooled.toString()).toBe('small');
    expect(part.toString()).toBe('y'.repeat(100));
    expect(larger.length).toBe(10_000);
  });
});
