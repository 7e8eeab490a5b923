import { describe, expect, it } from 'vitest';
import { followUpMessages, followUpProblem, ownEarlierAnswers, type EarlierRun } from '../src/run/follow-up.js';

const earlier: EarlierRun = {
  prompt: 'Which database for an event log?',
  models: ['a/one', 'b/two', 'a/one', 'c/three'],
  answers: ['A1: Postgres', 'B: Kafka', 'A2: ClickHouse', undefined],
  finalAnswer: 'FINAL: Postgres, partitioned by day.',
};

describe('ownEarlierAnswers', () => {
  it('gives each model its own earlier answer, the k-th repeat the k-th repeat’s, and none to a new model or one that failed', () => {
    expect(ownEarlierAnswers(earlier, ['a/one', 'c/three', 'a/one', 'd/new', 'b/two', 'a/one'])).toEqual([
      'A1: Postgres',
      undefined,
      'A2: ClickHouse',
      undefined,
      'B: Kafka',
      undefined,
    ]);
  });
});

describe('followUpMessages', () => {
  it('gives a model the earlier prompt, its own answer, then the final answer and the new prompt', () => {
    expect(followUpMessages(earlier, 'B: Kafka', 'And for 10x the volume?')).toEqual([
      { role: 'user', content: 'Which database for an event log?' },
      { role: 'assistant', content: 'B: Kafka' },
      {
        role: 'user',
        content: expect.stringMatching(
          /^Several AI models answered that question, you among them\. .*\n\nFINAL: Postgres, partitioned by day\.\n\n---\n\nAnd for 10x the volume\?$/,
        ),
      },
    ]);
  });

  it('gives a model without an earlier answer the final answer as the turn before the new prompt', () => {
    expect(followUpMessages(earlier, undefined, 'And for 10x the volume?')).toEqual([
      { role: 'user', content: 'Which database for an event log?' },
      { role: 'assistant', content: 'FINAL: Postgres, partitioned by day.' },
      { role: 'user', content: 'And for 10x the volume?' },
    ]);
  });

  it('gives only its own answer when the run ended without a final answer', () => {
    const messages = followUpMessages({ ...earlier, finalAnswer: undefined }, 'A1: Postgres', 'Why?');
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'Which database for an event log?'],
      ['assistant', 'A1: Postgres'],
      ['user', 'Why?'],
    ]);
  });

  it('gives a model with nothing to continue (it failed, and no final answer) one message with the earlier question and the new one', () => {
    const messages = followUpMessages({ ...earlier, finalAnswer: undefined }, undefined, 'Why?');
    expect(messages).toEqual([{ role: 'user', content: followUpProblem({ ...earlier, finalAnswer: undefined }, 'Why?') }]);
    expect(messages[0]!.content).toContain('Which database for an event log?');
    expect(messages[0]!.content).not.toContain('final answer');
  });

  it('alternates user and assistant turns, ending with the user', () => {
    for (const own of ['B: Kafka', undefined]) {
      const roles = followUpMessages(earlier, own, 'q').map((message) => message.role);
      expect(roles).toEqual(['user', 'assistant', 'user']);
    }
  });
});

describe('followUpProblem', () => {
  it('restates the earlier question and its final answer before the new prompt', () => {
    const problem = followUpProblem(earlier, 'And for 10x the volume?');
    const order = ['Which database for an event log?', 'FINAL: Postgres', 'And for 10x the volume?'].map((part) => problem.indexOf(part));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
