import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CandidateReport, ModelError, RunReport, SynthesisReport } from '../src/pipeline.js';
import { costLine, describeError, resultText, structuredResult } from '../src/present.js';
import { outputShape } from '../src/tool.js';

const RUN_DIR = '/home/ada/.local/share/parallel-llm-mcp/runs/2025-11-21T13-41-07.123Z_1a2b3c4d';
const SYNTHESIZER = 'google/gemini-2.5-pro';
const MAX_CHARS = 100_000;

const answeredModel = (index: number, model: string, ms: number): CandidateReport => ({
  index,
  model,
  status: 'answered',
  ms,
  attempts: 1,
  usage: { prompt_tokens: 400, completion_tokens: 100, total_tokens: 500, cost: 0.001 },
  file: `${RUN_DIR}/candidate-${index}_${model.replace('/', '_')}.md`,
});

const failedModel = (index: number, model: string, error: ModelError): CandidateReport => ({ index, model, status: 'failed', ms: 800, error });

const cutOffModel = (index: number, model: string): CandidateReport => ({ index, model, status: 'cut_off' });

const synthesisAnswered: SynthesisReport = {
  model: SYNTHESIZER,
  status: 'answered',
  ms: 41_000,
  usage: { prompt_tokens: 2000, completion_tokens: 600, total_tokens: 2600, cost: 0.02 },
  promptChars: 8000,
  trims: [],
  file: `${RUN_DIR}/final.md`,
};

function report(overrides: Partial<RunReport>): RunReport {
  return {
    status: 'complete',
    answer: 'Use an iterative loop; recursion depth is the problem.',
    answers: [],
    runDir: RUN_DIR,
    candidates: [answeredModel(1, 'openai/gpt-5-codex', 6_000), answeredModel(2, 'x-ai/grok-4-fast', 9_500)],
    synthesis: synthesisAnswered,
    totals: { prompt_tokens: 2800, completion_tokens: 800, total_tokens: 3600, cost: 0.0223 },
    warnings: [],
    budgetMs: 55_000,
    elapsedMs: 52_300,
    lateAnswers: Promise.resolve(),
    ...overrides,
  };
}

const outputSchema = z.object(outputShape);

describe('complete result', () => {
  const complete = report({});
  const text = resultText(complete, MAX_CHARS);

  it('starts with the synthesized answer', () => {
    expect(text.startsWith(complete.answer!)).toBe(true);
  });

  it('has a footer with the cost in dollars and the token count', () => {
    const footer = text.slice(complete.answer!.length);
    expect(footer).toContain('$0.0223');
    expect(footer).toContain('3,600 tokens');
  });

  it('names the run folder and every model that answered', () => {
    expect(text).toContain(RUN_DIR);
    expect(text).toContain('openai/gpt-5-codex');
    expect(text).toContain('x-ai/grok-4-fast');
  });

  it('gives structured content that matches the declared output schema', () => {
    const structured = structuredResult(complete);
    expect(outputSchema.safeParse(structured).success).toBe(true);
    expect(structured.status).toBe('complete');
    expect(structured.answer).toBe(complete.answer);
    expect(structured.run_folder).toBe(RUN_DIR);
    expect(structured.cut_off_models).toEqual([]);
  });
});

describe('partial result', () => {
  const error: ModelError = { kind: 'http', status: 502, message: 'Provider returned error' };
  const partial = report({
    status: 'partial',
    candidates: [answeredModel(1, 'openai/gpt-5-codex', 6_000), failedModel(2, 'x-ai/grok-4-fast', error)],
  });
  const text = resultText(partial, MAX_CHARS);

  it('still starts with the answer', () => {
    expect(text.startsWith(partial.answer!)).toBe(true);
  });

  it('names the failed model with the kind, status and message of its error', () => {
    const line = text.split('\n').find((l) => l.includes('x-ai/grok-4-fast'));
    expect(line).toBeDefined();
    expect(line).toContain('http');
    expect(line).toContain('502');
    expect(line).toContain('Provider returned error');
  });

  it('gives the failed model’s error in structured content', () => {
    const structured = structuredResult(partial);
    expect(outputSchema.safeParse(structured).success).toBe(true);
    expect(structured.models[1]).toMatchObject({ model: 'x-ai/grok-4-fast', status: 'failed', error: { kind: 'http', status: 502, message: 'Provider returned error' } });
  });
});

describe('models cut off by the budget', () => {
  const cut = report({
    status: 'partial',
    candidates: [
      answeredModel(1, 'openai/gpt-5-codex', 6_000),
      cutOffModel(2, 'mistralai/codestral-2508'),
      { ...cutOffModel(3, 'z-ai/glm-4.6'), late: true },
    ],
  });

  it('names every cut-off model in the text', () => {
    const text = resultText(cut, MAX_CHARS);
    const line = text.split('\n').find((l) => l.includes('mistralai/codestral-2508'));
    expect(line).toBeDefined();
    expect(line).toContain('z-ai/glm-4.6');
    expect(line).toMatch(/budget/i);
  });

  it('lists the cut-off models in structuredResult().cut_off_models, in model order', () => {
    const structured = structuredResult(cut);
    expect(structured.cut_off_models).toEqual(['mistralai/codestral-2508', 'z-ai/glm-4.6']);
    expect(outputSchema.safeParse(structured).success).toBe(true);
  });

  it('keeps the internal `late` flag out of structured content', () => {
    for (const model of structuredResult(cut).models) expect(model).not.toHaveProperty('late');
  });
});

describe('candidates only (synthesis failed)', () => {
  const answers = [
    { model: 'openai/gpt-5-codex', content: 'CANDIDATE ONE: loop instead of recursing.' },
    { model: 'x-ai/grok-4-fast', content: 'CANDIDATE TWO: memoise the calls.' },
  ];
  const candidatesOnly = report({
    status: 'candidates_only',
    answer: undefined,
    answers,
    synthesis: {
      model: SYNTHESIZER,
      status: 'failed',
      ms: 30_000,
      trims: [],
      error: { kind: 'timeout', message: 'no answer within 30000 ms', advice: 'Raise PARALLEL_LLM_TIMEOUT_MS, or shorten the prompt.' },
    },
  });
  const text = resultText(candidatesOnly, MAX_CHARS);

  it('names the synthesizer and its real error', () => {
    expect(text).toContain(SYNTHESIZER);
    expect(text).toContain('timeout');
    expect(text).toContain('no answer within 30000 ms');
  });

  it('includes every candidate’s answer, labelled with its model', () => {
    for (const answer of answers) {
      const at = text.indexOf(answer.content);
      expect(at).toBeGreaterThan(-1);
      expect(text.lastIndexOf(answer.model, at)).toBeGreaterThan(-1);
    }
  });

  it('gives a null answer and the synthesizer’s error in structured content', () => {
    const structured = structuredResult(candidatesOnly);
    expect(outputSchema.safeParse(structured).success).toBe(true);
    expect(structured.answer).toBeNull();
    expect(structured.synthesizer.error).toMatchObject({ kind: 'timeout', message: 'no answer within 30000 ms' });
  });

  it('shortens long candidates to fit and says where the full answers are', () => {
    const long = 'Z'.repeat(50_000);
    const text = resultText(
      report({ ...candidatesOnly, answers: [{ model: 'a/long', content: long, file: `${RUN_DIR}/candidate-1_a_long.md` }] }),
      10_000,
    );
    expect(text).not.toContain(long);
    expect(text).toContain(`${RUN_DIR}/candidate-1_a_long.md`);
  });
});

describe('failed result', () => {
  const failedReport = report({
    status: 'failed',
    answer: undefined,
    candidates: [
      failedModel(1, 'openai/gpt-5-codex', { kind: 'http', status: 401, message: 'No auth credentials found', advice: 'Check OPENROUTER_API_KEY: OpenRouter did not accept it.' }),
      failedModel(2, 'x-ai/grok-4-fast', { kind: 'rate_limited', status: 429, message: 'Rate limit exceeded: free-models-per-day' }),
      failedModel(3, 'z-ai/glm-4.6', { kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:443' }),
    ],
    synthesis: { model: SYNTHESIZER, status: 'skipped', trims: [], error: { kind: 'cancelled', message: 'no candidate answered, so there was nothing to synthesize' } },
    totals: {},
  });
  const text = resultText(failedReport, MAX_CHARS);

  it('lists each model with its status and real error message', () => {
    for (const candidate of failedReport.candidates) {
      const line = text.split('\n').find((l) => l.includes(candidate.model));
      expect(line, candidate.model).toBeDefined();
      expect(line).toContain(candidate.error!.message);
      expect(line).toContain(candidate.error!.kind);
      if (candidate.error!.status !== undefined) expect(line).toContain(String(candidate.error!.status));
    }
  });

  it('includes the advice for an error the user can fix', () => {
    expect(text).toContain('OPENROUTER_API_KEY');
  });

  it('gives structured content with a null answer and every error', () => {
    const structured = structuredResult(failedReport);
    expect(outputSchema.safeParse(structured).success).toBe(true);
    expect(structured.status).toBe('failed');
    expect(structured.answer).toBeNull();
    expect(structured.models.map((m) => m.error?.status)).toEqual([401, 429, undefined]);
  });
});

describe('answers that begin with "Error:"', () => {
  const errorish = 'Error: the function returns undefined because the base case is missing. Add `if (n < 2) return n;`.';

  it('renders a synthesized answer beginning with "Error:" as the answer, first in the text', () => {
    const complete = report({ answer: errorish });
    expect(resultText(complete, MAX_CHARS).startsWith(errorish)).toBe(true);
    expect(structuredResult(complete)).toMatchObject({ status: 'complete', answer: errorish });
  });

  it('renders a candidate answer beginning with "Error:" among the candidates like any other', () => {
    const text = resultText(
      report({
        status: 'candidates_only',
        answer: undefined,
        answers: [{ model: 'openai/gpt-5-codex', content: errorish }],
        synthesis: { model: SYNTHESIZER, status: 'failed', trims: [], error: { kind: 'http', status: 503, message: 'No instances available' } },
      }),
      MAX_CHARS,
    );
    expect(text).toContain(errorish);
    expect(text).not.toMatch(/openai\/gpt-5-codex[^\n]*failed/i);
  });
});

describe('describeError', () => {
  it('keeps OpenRouter’s message verbatim, dots included', () => {
    const message = 'max_tokens must be in 1..32768';
    expect(describeError({ kind: 'http', status: 400, message })).toContain(message);
  });
});

describe('costLine', () => {
  it('gives the cost in dollars, the tokens with their split, and the time', () => {
    const line = costLine({ cost: 0.0123, total_tokens: 12_345, prompt_tokens: 10_000, completion_tokens: 2_345, reasoning_tokens: 1_200 }, 48_200);
    expect(line).toContain('$0.0123');
    expect(line).toContain('12,345 tokens');
    expect(line).toContain('10,000 in');
    expect(line).toContain('2,345 out');
    expect(line).toContain('1,200');
    expect(line).toContain('48.2 s');
  });

  it('says the cost was not reported, and shows no dollar figure or tokens, when the API reported neither', () => {
    const line = costLine({}, 1_000);
    expect(line).not.toContain('$');
    expect(line).not.toMatch(/tokens/);
    expect(line).toMatch(/not reported/i);
    expect(line).toContain('1.0 s');
  });

  it('shows a reported cost of zero as $0.0000, not as missing', () => {
    expect(costLine({ cost: 0, total_tokens: 10 }, 500)).toContain('$0.0000');
  });
});
