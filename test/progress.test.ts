import { describe, expect, it } from 'vitest';
import { ProgressTracker, type ProgressUpdate } from '../src/mcp/progress.js';
import type { CandidateRecord, RunState } from '../src/run/record.js';

const MODELS = ['~openai/gpt-latest', '~x-ai/grok-latest', '~z-ai/glm-latest'];
const SYNTHESIZER = '~google/gemini-pro-latest';

/** A tracker on a fake clock, a record it follows, and helpers that move the run on. */
function setup() {
  const clock = { t: 1_000_000 };
  const sent: ProgressUpdate[] = [];
  const tracker = new ProgressTracker(
    (update) => sent.push(update),
    () => clock.t,
  );
  const record = {
    status: 'running',
    candidates: MODELS.map((model, i): CandidateRecord => ({ index: i + 1, model, status: 'waiting' })),
    synthesis: { status: 'waiting', attempts: [] },
  } as unknown as RunState;
  const advance = (ms: number) => {
    clock.t += ms;
    tracker.update(record);
  };
  const answer = (i: number, ms: number) => {
    record.candidates[i] = { index: i + 1, model: MODELS[i]!, status: 'answered', ms, attempts: 1, chars: 10 };
    tracker.update(record);
  };
  const fail = (i: number) => {
    record.candidates[i] = {
      index: i + 1,
      model: MODELS[i]!,
      status: 'failed',
      ms: 10,
      error: { kind: 'http', status: 502, message: 'Provider returned error' },
    };
    tracker.update(record);
  };
  const synthesize = () => {
    record.synthesis = { status: 'running', model: SYNTHESIZER, attempts: [] };
    tracker.update(record);
  };
  return { tracker, sent, record, advance, answer, fail, synthesize };
}

const strictlyIncreasing = (updates: ProgressUpdate[]) =>
  updates.every((update, i) => i === 0 || update.progress > updates[i - 1]!.progress);

describe('ProgressTracker', () => {
  it('tells of a model recorded after the synthesis began, whose file was still being saved when it did', () => {
    const { sent, answer, synthesize } = setup();
    answer(0, 1000);
    answer(1, 2000);
    synthesize();
    answer(2, 3000);
    expect(sent.at(-1)!.message).toMatch(/since the last step\): ~z-ai\/glm-latest answered in 3\.0 s$/);
    expect(strictlyIncreasing(sent)).toBe(true);
  });

  it('counts one step per model and one for synthesis, out of models + 2', () => {
    const { sent, tracker, record, answer, fail, synthesize } = setup();
    tracker.update(record);
    answer(1, 6000);
    fail(2);
    answer(0, 12_000);
    synthesize();
    expect(sent.map((u) => u.progress)).toEqual([0, 1, 2, 3, 4]);
    expect(sent.every((u) => u.total === 5)).toBe(true);
    expect(sent[0]!.message).toBe('0 of 3 models finished; waiting for ~openai/gpt-latest, ~x-ai/grok-latest, ~z-ai/glm-latest');
    expect(sent[1]!.message).toBe(
      '1 of 3 models finished; waiting for ~openai/gpt-latest, ~z-ai/glm-latest: ~x-ai/grok-latest answered in 6.0 s',
    );
    expect(sent[2]!.message).toContain('~z-ai/glm-latest failed (HTTP 502: Provider returned error)');
    expect(sent[4]!.message).toBe(`synthesizing 2 answers with ${SYNTHESIZER}`);
  });

  it('creeps towards the next step between steps, never reaching it, strictly increasing over hours', () => {
    const { sent, tracker, record, advance, answer } = setup();
    tracker.update(record);
    for (let i = 0; i < 2000; i++) advance(5000);
    answer(0, 10_000_000);
    for (let i = 0; i < 100; i++) advance(5000);
    expect(strictlyIncreasing(sent)).toBe(true);
    expect(sent.filter((u) => u.progress < 1).length).toBeGreaterThan(1000);
    expect(sent.find((u) => u.message.includes('answered in'))!.progress).toBe(1);
    expect(sent.at(-1)!.progress).toBeLessThan(2);
    expect(sent.at(-1)!.message).toMatch(/^1 of 3 models finished; waiting for .* \(500\.0 s since the last step\)$/);
  });

  it('starts from where a run stands when it joins one midway', () => {
    const { sent, tracker, record } = setup();
    record.candidates[0] = { index: 1, model: MODELS[0]!, status: 'answered', ms: 5, attempts: 1, chars: 1 };
    record.candidates[1] = { index: 2, model: MODELS[1]!, status: 'answered', ms: 5, attempts: 1, chars: 1 };
    tracker.update(record);
    expect(sent.map((u) => u.progress)).toEqual([2]);
  });

  it('sends nothing once closed', () => {
    const { sent, tracker, advance } = setup();
    tracker.close();
    advance(5000);
    expect(sent).toEqual([]);
  });
});
