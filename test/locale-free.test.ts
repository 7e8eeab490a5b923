import { describe, expect, it } from 'vitest';
import { byCodeUnits, thousands } from '../src/text/locale-free.js';

describe('thousands', () => {
  it.each([0, 7, 999, 1000, 4000, 16_777_216, 1_234_567_890, -1234, 12.6])('writes %d as en-US does', (n) => {
    expect(thousands(n)).toBe(Math.round(n).toLocaleString('en-US'));
  });
});

describe('byCodeUnits', () => {
  it('orders ids and ISO timestamps as sort() does, and equal strings as equal', () => {
    const ids = ['openai/gpt-5', 'anthropic/claude', '2026-11-25T10:00:00.000Z', '2026-11-25T09:59:59.999Z', 'B', 'A'];
    expect([...ids].sort(byCodeUnits)).toEqual([...ids].sort());
    expect(byCodeUnits('same', 'same')).toBe(0);
  });
});
