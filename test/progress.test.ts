import { describe, expect, it } from 'vitest';
import type { CandidateReport, RunEvent } from '../src/pipeline.js';
import { ProgressTracker, type ProgressUpdate } from '../src/progress.js';

const MODELS = ['openai/gpt-5-codex', 'x-ai/grok-4-fast', 'z-ai/glm-4.6'];
const SYNTHESIZER = 'google/gemini-2.5-pro';

/** A tracker on a fake clock, with every update it sends and event builders that count settled models. */
function setup(models = MODELS) {
  const clock = { t: 1_000_000 };
  const sent: ProgressUpdate[] = [];
  const tracker = new ProgressTracker(models, (update) => sent.push(update), () => clock.t);
  const advance = (ms: number) => {
    clock.t += ms;
  };
  let settled = 0;
  const candidateEvent = (candidate: CandidateReport): RunEvent => ({ type: 'candidate', candidate, settled: ++settled, total: models.length });
  const answered = (model: string, ms: number) =>
    candidateEvent({ index: models.indexOf(model) + 1, model, status: 'answered', ms });
  const failed = (model: string, ms: number) =>
    candidateEvent({
      index: models.indexOf(model) + 1,
      model,
      status: 'failed',
      ms,
      error: { kind: 'http', status: 502, message: 'Provider returned error' },
    });
  return { tracker, sent, advance, answered, failed };
}

const synthesis = (candidates: number): RunEvent => ({ type: 'synthesis', model: SYNTHESIZER, candidates, limitMs: 50_000 });

const expectStrictlyIncreasing = (updates: ProgressUpdate[]) => {
  for (let i = 1; i < updates.length; i++) {
    expect(updates[i]!.progress, `update ${i}: ${updates[i]!.message}`).toBeGreaterThan(updates[i - 1]!.progress);
  }
};

describe('ProgressTracker', () => {
  it('has a total of the number of models plus two', () => {
    expect(setup().tracker.total).toBe(MODELS.length + 2);
    expect(setup(['a/one']).tracker.total).toBe(3);
    expect(setup(['a', 'b', 'c', 'd', 'e']).tracker.total).toBe(7);
  });

  it('reports strictly increasing progress across heartbeats, candidate events and the synthesis event', () => {
    const { tracker, sent, advance, answered, failed } = setup();
    const beat = (times: number) => {
      for (let i = 0; i < times; i++) {
        advance(5_000);
        tracker.heartbeat();
      }
    };
    beat(3);
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    beat(4);
    tracker.onEvent(failed('z-ai/glm-4.6', 12_000));
    tracker.heartbeat(); // no time has passed: nothing new to say
    beat(10);
    tracker.onEvent(answered('openai/gpt-5-codex', 98_000));
    beat(2);
    tracker.onEvent(synthesis(2));
    beat(12);

    expect(sent.length).toBeGreaterThan(30);
    expectStrictlyIncreasing(sent);
    for (const update of sent) {
      expect(update.total).toBe(MODELS.length + 2);
      expect(update.progress).toBeGreaterThan(0);
      expect(update.progress).toBeLessThan(update.total);
    }
  });

  it('sends one whole step per finished model and one for synthesis', () => {
    const { tracker, sent, answered, failed } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    tracker.onEvent(failed('z-ai/glm-4.6', 12_000));
    tracker.onEvent(answered('openai/gpt-5-codex', 98_000));
    tracker.onEvent(synthesis(2));
    expect(sent.map((update) => update.progress)).toEqual([1, 2, 3, 4]);
  });

  it('never lets a heartbeat reach the next whole step, however long the wait', () => {
    const { tracker, sent, advance, answered } = setup();
    const checkBeats = (step: number) => {
      for (const wait of [1, 1_000, 10_000, 60_000, 600_000, 36_000_000]) {
        advance(wait);
        tracker.heartbeat();
        const last = sent[sent.length - 1]!;
        expect(last.progress).toBeGreaterThan(step);
        expect(last.progress).toBeLessThan(step + 1);
      }
    };
    checkBeats(0);
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    checkBeats(1);
    tracker.onEvent(synthesis(1));
    checkBeats(MODELS.length + 1);
  });

  it('moves to the synthesis step even when models were cut off before finishing', () => {
    const { tracker, sent, advance, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    advance(40_000);
    tracker.heartbeat();
    tracker.onEvent(synthesis(1));
    expectStrictlyIncreasing(sent);
    expect(sent[sent.length - 1]!.progress).toBe(MODELS.length + 1);
  });

  it('sends nothing after close()', () => {
    const { tracker, sent, advance, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    const before = sent.length;
    tracker.close();
    advance(10_000);
    tracker.heartbeat();
    tracker.onEvent(answered('z-ai/glm-4.6', 16_000));
    tracker.onEvent(synthesis(2));
    advance(10_000);
    tracker.heartbeat();
    expect(sent.length).toBe(before);
  });

  it('names the model and its time when a model answers', () => {
    const { tracker, sent, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 12_345));
    expect(sent[0]!.message).toContain('x-ai/grok-4-fast');
    expect(sent[0]!.message).toContain('12.3 s');
  });

  it('names the model and the kind of error when a model fails', () => {
    const { tracker, sent, failed } = setup();
    tracker.onEvent(failed('z-ai/glm-4.6', 3_000));
    expect(sent[0]!.message).toContain('z-ai/glm-4.6');
    expect(sent[0]!.message).toContain('http');
  });

  it('names the synthesizer when synthesis starts', () => {
    const { tracker, sent, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    tracker.onEvent(synthesis(1));
    expect(sent[sent.length - 1]!.message).toContain(SYNTHESIZER);
  });

  it('says in each heartbeat how long it has waited and which models have finished', () => {
    const { tracker, sent, advance, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    advance(25_000);
    tracker.heartbeat();
    const beat = sent[sent.length - 1]!.message;
    expect(beat).toContain('25.0 s');
    expect(beat).toContain('x-ai/grok-4-fast');
  });

  it('keeps progress below the total until the result, even when a cut-off model finishes during synthesis', () => {
    const { tracker, sent, advance, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    tracker.onEvent(synthesis(1));
    // The pipeline still reports candidates that finish while the synthesizer works.
    advance(3_000);
    tracker.onEvent(answered('openai/gpt-5-codex', 58_000));
    advance(3_000);
    tracker.onEvent(answered('z-ai/glm-4.6', 61_000));
    for (const update of sent) expect(update.progress, update.message).toBeLessThan(update.total);
  });

  it('keeps sending heartbeats during synthesis after a cut-off model finishes', () => {
    const { tracker, sent, advance, answered } = setup();
    tracker.onEvent(answered('x-ai/grok-4-fast', 6_000));
    tracker.onEvent(synthesis(1));
    advance(3_000);
    tracker.onEvent(answered('openai/gpt-5-codex', 58_000));
    for (let i = 1; i <= 6; i++) {
      const before = sent.length;
      advance(5_000);
      tracker.heartbeat();
      expect(sent.length, `heartbeat ${i}, ${i * 5} s into synthesis`).toBe(before + 1);
    }
    expectStrictlyIncreasing(sent);
  });
});
