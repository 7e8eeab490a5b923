import { describe, expect, it } from 'vitest';
import { anonymise, candidateLabel, shuffle } from '../src/prompts/anonymise.js';

describe('candidateLabel', () => {
  it.each([
    [0, 'A'],
    [1, 'B'],
    [25, 'Z'],
    [26, 'AA'],
    [27, 'AB'],
    [701, 'ZZ'],
    [702, 'AAA'],
  ])('letters position %i as %s', (position, label) => {
    expect(candidateLabel(position)).toBe(label);
  });
});

describe('shuffle', () => {
  const items = ['m0', 'm1', 'm2', 'm3', 'm4'];

  it('gives the same order for the same seed, every time', () => {
    expect(shuffle(items, 'run-1')).toEqual(shuffle(items, 'run-1'));
  });

  it('returns every item once and leaves its input alone', () => {
    const copy = [...items];
    expect([...shuffle(items, 'run-2')].sort()).toEqual(items);
    expect(items).toEqual(copy);
  });

  it('puts each item first about as often as any other across run ids', () => {
    const firsts = new Map<string, number>();
    for (let run = 0; run < 1000; run++) {
      const first = shuffle(items, `2026-01-01T00-00-00.000Z_${run.toString(16)}`)[0]!;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    for (const item of items) expect(firsts.get(item)).toBeGreaterThan(140);
  });
});

describe('anonymise', () => {
  const answers = ['a/one', 'b/two', 'c/three', 'b/two'].map((model, index) => ({ model, index, content: `answer ${index}` }));

  it('letters the answers A, B, C... in the run’s shuffled order, the same for the same run id', () => {
    const lettered = anonymise('run-x', answers);
    expect(lettered.map((answer) => answer.label)).toEqual(['A', 'B', 'C', 'D']);
    expect(lettered.map((answer) => answer.index)).toEqual(shuffle(answers, 'run-x').map((answer) => answer.index));
    expect(anonymise('run-x', answers)).toEqual(lettered);
  });

  it('gives each repeat of a model its own letter (Self-MoA)', () => {
    const repeats = anonymise('run-y', answers).filter((answer) => answer.model === 'b/two');
    expect(repeats).toHaveLength(2);
    expect(new Set(repeats.map((answer) => answer.label)).size).toBe(2);
  });

  it('orders differently for some other run id', () => {
    const orders = new Set(
      ['r1', 'r2', 'r3', 'r4', 'r5'].map((runId) =>
        anonymise(runId, answers)
          .map((answer) => answer.index)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});
