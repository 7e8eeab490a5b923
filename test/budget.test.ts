import { describe, expect, it } from 'vitest';
import { FALLBACK_BUDGET_MS, SynthesisReserve, budgetForClient } from '../src/budget.js';

describe('budgetForClient', () => {
  it.each([
    ['claude-ai', 55_000],
    ['claude-code', 600_000],
    ['cursor-vscode', 270_000],
    ['Visual Studio Code', 270_000],
    ['Visual Studio Code - Insiders', 270_000],
    ['inspector-client', 55_000],
    ['mcp-inspector', 55_000],
    ['Cline', 55_000],
  ])('gives %s a budget of %i ms', (name, budgetMs) => {
    expect(budgetForClient(name)).toEqual({ budgetMs, source: `client "${name}"` });
  });

  it('gives unknown and nameless clients the generous fallback', () => {
    expect(budgetForClient('some-new-client').budgetMs).toBe(FALLBACK_BUDGET_MS);
    expect(budgetForClient(undefined)).toEqual({ budgetMs: FALLBACK_BUDGET_MS, source: 'no client name' });
  });
});

describe('SynthesisReserve', () => {
  it('keeps 40% of the budget for a synthesizer it has not seen yet', () => {
    expect(new SynthesisReserve().reserveMs('s/new', 10_000)).toBe(4000);
  });

  it('learns how long a synthesizer takes and keeps that, with a margin', () => {
    const reserve = new SynthesisReserve();
    reserve.record('s/fast', 3000, true);
    expect(reserve.reserveMs('s/fast', 20_000)).toBe(5000);
    expect(reserve.reserveMs('s/other', 20_000)).toBe(8000);
  });

  it('grows the reserve after a synthesis that ran out of time', () => {
    const reserve = new SynthesisReserve();
    const before = reserve.reserveMs('s/slow', 10_000);
    reserve.record('s/slow', before, false);
    expect(reserve.reserveMs('s/slow', 10_000)).toBeGreaterThan(before);
  });

  it('never keeps less than a quarter or more than four fifths of the budget', () => {
    const reserve = new SynthesisReserve();
    reserve.record('s/instant', 1, true);
    reserve.record('s/glacial', 1_000_000, true);
    expect(reserve.reserveMs('s/instant', 10_000)).toBe(2500);
    expect(reserve.reserveMs('s/glacial', 10_000)).toBe(8000);
  });
});
