import { describe, expect, it } from 'vitest';
import { similar } from '../src/cli/doctor.js';

const catalogue = new Set(['openai/gpt-4o', 'openai/gpt-4o-mini', 'openai/gpt-4.1', 'openai/gpt-5', 'openai/gpt-5-mini', 'openai/gpt-5-codex', 'x-ai/grok-4-fast']);

describe('doctor’s suggestions for an unknown model id', () => {
  it.each(['openai/gpt-5-codx', 'openai/gtp-5-codex', 'OpenAI/gpt-5-codex'.toLowerCase().replace('codex', 'codec')])(
    'puts the closest id first for %s',
    (typo) => {
      expect(similar(typo, catalogue)[0]).toBe('openai/gpt-5-codex');
    },
  );

  it('suggests nothing when no id is close', () => {
    expect(similar('anthropic/claude-opus-4', catalogue)).toEqual([]);
  });

  it('suggests at most three ids', () => {
    expect(similar('openai/gpt-4', catalogue).length).toBeLessThanOrEqual(3);
  });
});
