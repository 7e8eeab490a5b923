import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak.js';
import { binPath } from './support.js';

describe('a short soak on the installed bin', () => {
  it('loses no call and leaks no file descriptors over 150 calls with mixed upstream faults', async () => {
    const figures = await runSoak({ calls: 150, binPath: binPath() });
    expect(figures.returned).toBe(150);
    expect(figures.lost).toBe(0);
    expect(figures.runFoldersWritten).toBe(150);
    expect(Object.keys(figures.modelErrors).sort()).toEqual(['bad_body', 'http', 'network', 'timeout']);
    expect(figures.end.openFds).toBeLessThanOrEqual(figures.start.openFds + 2);
  }, 120_000);
});
