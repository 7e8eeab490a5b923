import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputShape } from '../src/present/output-schema.js';
import { headline } from '../src/present/headline.js';
import { toolResult, type Layout } from '../src/present/result.js';
import { costLine } from '../src/present/cost.js';
import { describeError } from '../src/present/words.js';
import type { CandidateRecord, ModelError, RunState } from '../src/run/record.js';
import type { RunView } from '../src/run/service.js';

const RUN_ID = '2026-11-21T13-41-07.123Z_1a2b3c4d';
const RUN_DIR = `/home/ada/.local/share/parallel-llm-mcp/runs/${RUN_ID}`;
const SYNTHESIZER = '~google/gemini-pro-latest';
const usage = { prompt_tokens: 400, completion_tokens: 100, total_tokens: 500, cost: 0.001 };

const answered = (index: number, model: string, ms: number): Extract<CandidateRecord, { status: 'answered' }> => ({
  index,
  model,
  status: 'answered',
  ms,
  attempts: 1,
  chars: 20,
  usage,
  file: `candidate-${index}.md`,
});
const failed = (index: number, model: string, error: ModelError): CandidateRecord => ({ index, model, status: 'failed', ms: 800, error });
const waiting = (index: number, model: string): CandidateRecord => ({ index, model, status: 'waiting' });
const rateLimited: ModelError = {
  kind: 'rate_limited',
  status: 429,
  message: 'Rate limit exceeded.',
  advice: 'Wait a little, or lower PARALLEL_LLM_MAX_CONCURRENCY.',
};

function record(overrides: Partial<RunState>): RunState {
  return {
    format: 1,
    run_id: RUN_ID,
    request_key: 'k',
    status: 'complete',
    owner: { pid: 1, host: 'h', instance: 'i' },
    started_at: '2026-11-21T13:41:07.123Z',
    updated_at: '2026-11-21T13:42:00.000Z',
    elapsed_ms: 52_300,
    resumes: 0,
    settings: { models: [], synthesizer_models: [SYNTHESIZER], temperature: 0.7, max_tokens: 1000 },
    title: 'Why does my recursion overflow?',
    candidates: [answered(1, '~openai/gpt-latest', 6_000), answered(2, '~x-ai/grok-latest', 9_500)],
    synthesis: {
      status: 'answered',
      model: SYNTHESIZER,
      attempts: [{ model: SYNTHESIZER, status: 'answered', ms: 41_000, chars: 54, usage }],
      file: 'final.md',
    },
    totals: { prompt_tokens: 2800, completion_tokens: 800, total_tokens: 3600, cost: 0.0223 },
    warnings: [],
    ...overrides,
  };
}

const view = (run: RunState, answer?: string, answers: Array<[number, string]> = []): RunView => ({
  state: run,
  answer,
  answers: new Map(answers),
  dir: RUN_DIR,
});
const result = (
  v: RunView,
  layout: Layout = 'both',
  maxAnswerChars = 100_000,
  options: { joined?: 'new' | 'attached' | 'resumed'; poll?: number } = { joined: 'new' },
) => {
  const out = toolResult(v, { maxAnswerChars, layout, budgetMs: 55_000, ...options });
  return { ...out, text: (out.content[0] as { text: string }).text, data: z.object(outputShape).parse(out.structuredContent) };
};

const ANSWER = 'Use an iterative loop; recursion depth is the problem.';

describe('the first line', () => {
  it.each([
    ['complete', record({}), `All 2 models answered; synthesized by ${SYNTHESIZER}. Cost $0.0223.`],
    [
      'partial',
      record({
        status: 'partial',
        candidates: [answered(1, 'a/one', 1000), failed(2, 'x-ai/grok', rateLimited), answered(3, 'c/three', 1000)],
      }),
      `2 of 3 models answered; x-ai/grok failed: rate limited (429). Synthesized by ${SYNTHESIZER}. Cost $0.0223.`,
    ],
    ['one model', record({ candidates: [answered(1, 'a/one', 1000)] }), `The model answered; synthesized by ${SYNTHESIZER}. Cost $0.0223.`],
    [
      'failed',
      record({
        status: 'failed',
        candidates: [failed(1, 'a/one', { kind: 'http', status: 401, message: 'User not found.' })],
        synthesis: { status: 'skipped', attempts: [] },
        totals: {},
      }),
      'No model answered: a/one failed: HTTP 401: User not found.',
    ],
    [
      'interrupted with one missing',
      record({
        status: 'interrupted',
        candidates: [answered(1, 'a/one', 1000), waiting(2, 'b/two')],
        synthesis: { status: 'waiting', attempts: [] },
      }),
      'Interrupted: the process running it stopped, with 1 of 2 answers saved. Call process_prompt again with the same input to resume it: only the 1 model without an answer will be asked. Cost $0.0223.',
    ],
    [
      'cancelled before any answer',
      record({
        status: 'cancelled',
        candidates: [failed(1, 'a/one', { kind: 'cancelled', message: 'cancelled' })],
        synthesis: { status: 'skipped', attempts: [] },
        totals: {},
      }),
      'Cancelled: every upstream request was stopped before any model answered.',
    ],
  ])('says what a %s run holds and what is missing, in one line', (_name, run, line) => {
    expect(headline(run)).toBe(line);
    expect(line).not.toMatch(/\.\.|\b1 answers\b|\b1 models\b/);
  });

  it('tells the calling model to call get_run while the run goes on, naming who is still working', () => {
    const running = record({
      status: 'running',
      candidates: [answered(1, 'a/one', 1000), waiting(2, 'b/two'), waiting(3, 'c/three')],
      synthesis: { status: 'waiting', attempts: [] },
    });
    expect(headline(running)).toBe(
      `Still running: 1 of 3 models answered so far; waiting for b/two, c/three. Call get_run with run_id "${RUN_ID}" to wait for the synthesis; the run goes on meanwhile, and nothing is lost or paid twice.`,
    );
    const synthesizing = record({ status: 'running', synthesis: { status: 'running', model: SYNTHESIZER, attempts: [] } });
    expect(headline(synthesizing)).toMatch(`Still running: 2 of 2 models answered, and ${SYNTHESIZER} is synthesizing.`);
  });

  it('hands the calling model the exact next get_run call, whose poll number changes each time, so that no two calls in a row are the same', () => {
    const running = record({
      status: 'running',
      candidates: [answered(1, 'a/one', 1000), waiting(2, 'b/two')],
      synthesis: { status: 'waiting', attempts: [] },
    });
    const first = result(view(running), 'both', 100_000, { joined: 'new', poll: 1 });
    const second = result(view(running), 'both', 100_000, { poll: 2 });
    expect(first.text.split('\n')[0]).toContain(`Call get_run with {"run_id":"${RUN_ID}","poll":1} to wait`);
    expect(first.data.next_call).toEqual({ tool: 'get_run', arguments: { run_id: RUN_ID, poll: 1 } });
    expect(second.data.next_call).toEqual({ tool: 'get_run', arguments: { run_id: RUN_ID, poll: 2 } });
    expect(first.text.split('\n')[0]).not.toBe(second.text.split('\n')[0]);
    expect(result(view(record({})), 'both', 100_000, { poll: 3 }).data.next_call).toBeNull();
  });

  it('tells a cancelled run that the same request reuses what arrived', () => {
    const cancelled = record({
      status: 'cancelled',
      candidates: [answered(1, 'a/one', 1000), failed(2, 'b/two', { kind: 'cancelled', message: 'cancelled' })],
      synthesis: { status: 'skipped', attempts: [] },
    });
    expect(headline(cancelled)).toBe(
      'Cancelled: every upstream request was stopped; the result holds the 1 of 2 answers that had arrived. The same request again reuses it and asks only the 1 other model. Cost $0.0223.',
    );
  });
});

describe('a complete result', () => {
  const { text, data, isError } = result(view(record({}), ANSWER));

  it('puts the first line above the answer, and an account below', () => {
    expect(text.startsWith(`All 2 models answered; synthesized by ${SYNTHESIZER}. Cost $0.0223.\n\n${ANSWER}\n\n---\n`)).toBe(true);
    expect(text).toContain('Models: 2 of 2 models answered (~openai/gpt-latest 6.0 s, ~x-ai/grok-latest 9.5 s).');
    expect(text).toContain(`Synthesized by ${SYNTHESIZER} in 41.0 s.`);
    expect(text).toContain('Cost: $0.0223, 3,600 tokens (2,800 in, 800 out), 52.3 s.');
    expect(text).toContain(`Run ${RUN_ID}, saved in ${RUN_DIR}`);
    expect(isError).toBe(false);
  });

  it('says the same in fields, with the files as full paths', () => {
    expect(data).toMatchObject({
      run_id: RUN_ID,
      status: 'complete',
      answer: ANSWER,
      answer_cut: false,
      run_folder: RUN_DIR,
      next_step: null,
      budget_ms: 55_000,
    });
    expect(data.summary).toBe(text.split('\n')[0]);
    expect(data.models[0]).toMatchObject({
      status: 'answered',
      file: `${RUN_DIR}/candidate-1.md`,
      answer: null,
      usage: { cost: 0.001, reasoning_tokens: null },
    });
    expect(data.synthesizer).toMatchObject({ status: 'answered', model: SYNTHESIZER, file: `${RUN_DIR}/final.md` });
  });
});

describe('an answer stopped short', () => {
  it('says whether max_tokens or the stored-answer cap stopped it, in the text and the fields', () => {
    const run = record({
      candidates: [
        { ...answered(1, 'a/long', 1000), truncated: true },
        {
          ...answered(2, 'b/runaway', 2000),
          truncated: true,
          cut_short: 'the answer passed 16,777,216 characters, the most kept of one answer: the request was ended there',
        },
      ],
    });
    const { text, data } = result(view(run, ANSWER));
    expect(text).toContain(
      '(a/long 1.0 s, cut at max_tokens, b/runaway 2.0 s, the answer passed 16,777,216 characters, the most kept of one answer: the request was ended there)',
    );
    expect(data.models.map((model) => [model.truncated, model.cut_short])).toEqual([
      [true, null],
      [true, 'the answer passed 16,777,216 characters, the most kept of one answer: the request was ended there'],
    ]);
  });
});

describe('answers shown, within the cap', () => {
  it('shares the cap fairly among the candidates when there is no synthesis, cutting the longest and saying where each is', () => {
    const run = record({
      status: 'candidates_only',
      synthesis: {
        status: 'failed',
        attempts: [
          { model: SYNTHESIZER, status: 'failed', error: { kind: 'timeout', message: 'no complete answer within the 240000 ms limit' } },
        ],
      },
    });
    run.candidates = [
      { ...answered(1, 'a/short', 100), chars: 200 },
      { ...answered(2, 'b/long', 100), chars: 5000 },
    ];
    const { text, data } = result(
      view(run, undefined, [
        [0, 's'.repeat(200)],
        [1, 'L'.repeat(5000)],
      ]),
      'both',
      1000,
    );
    expect(data.models[0]!.answer).toBe('s'.repeat(200));
    expect(data.models[1]!.answer!.startsWith('L'.repeat(800))).toBe(true);
    expect(data.models[1]!.answer).toContain(
      `[... cut at 800 of 5,000 characters; the whole answer is saved in ${RUN_DIR}/candidate-2.md]`,
    );
    expect(text).toContain('## Candidate 2: b/long');
    expect(text).toContain(`Synthesis failed: ${SYNTHESIZER} failed: timeout: no complete answer within the 240000 ms limit.`);
  });

  it('never cuts an emoji in half', () => {
    const run = record({});
    run.synthesis.attempts = [{ model: SYNTHESIZER, status: 'answered', ms: 1, chars: 2000 }];
    const { data } = result(view(run, '😀'.repeat(1000)), 'both', 1001);
    expect(data.answer!.startsWith(`${'😀'.repeat(500)}\n\n[... cut at 1,001 of 2,000`)).toBe(true);
  });

  it.each([
    ['content', false, true],
    ['structured_content', true, false],
    ['both', true, true],
  ] as const)('with layout %s, carries the answer in structuredContent: %s, in the text: %s', (layout, inFields, inText) => {
    const { text, data } = result(view(record({}), ANSWER), layout);
    expect(data.answers_in).toBe(layout);
    expect(data.answer === ANSWER).toBe(inFields);
    expect(text.includes(ANSWER)).toBe(inText);
    expect(text.split('\n')[0]).toBe(data.summary);
  });
});

describe('errors in words', () => {
  it('keeps OpenRouter’s message verbatim, with one full stop and the advice', () => {
    expect(describeError(rateLimited)).toBe('rate_limited 429: Rate limit exceeded. Wait a little, or lower PARALLEL_LLM_MAX_CONCURRENCY.');
    expect(describeError({ kind: 'http', status: 400, message: 'No endpoints found' })).toBe('http 400: No endpoints found.');
  });

  it('gives the cost, the tokens with their split, and the time; or says the cost was not reported', () => {
    expect(
      costLine(
        record({
          totals: { prompt_tokens: 1000, completion_tokens: 234, reasoning_tokens: 100, total_tokens: 1234, cost: 0.0123 },
          elapsed_ms: 48_200,
        }),
        'new',
      ),
    ).toBe('Cost: $0.0123, 1,234 tokens (1,000 in, 234 out, 100 of them reasoning), 48.2 s.');
    expect(costLine(record({ totals: {}, elapsed_ms: 1000 }), 'new')).toBe('Cost: cost not reported, 1.0 s.');
    expect(costLine(record({ totals: { cost: 0 }, elapsed_ms: undefined }), undefined)).toBe('Cost: $0.0000.');
  });

  it('says a call that joined a run already paid for cost nothing new, instead of repeating the cost as if paid now', () => {
    const { text, data } = result(view(record({}), ANSWER), 'both', 100_000, { joined: 'attached' });
    expect(text).toContain(
      `Cost: no new cost: this call reused run ${RUN_ID}, which cost $0.0223, 3,600 tokens (2,800 in, 800 out), 52.3 s when it ran.`,
    );
    expect(data).toMatchObject({ joined: 'attached', new_cost: 0, totals: { cost: 0.0223 } });
    expect(text.split('\n')[0]).toMatch(new RegExp(` Reused run ${RUN_ID}, no new cost\\.$`));
    expect(data.summary).toBe(text.split('\n')[0]);
  });

  it('counts answers reused after a stop as paid before, not now', () => {
    const resumed = record({ candidates: [{ ...answered(1, 'a/one', 1000), reused: true }, answered(2, 'b/two', 2000)] });
    const { text, data } = result(view(resumed, ANSWER), 'both', 100_000, { joined: 'resumed' });
    expect(text).toContain(
      'Cost: $0.0223, 3,600 tokens (2,800 in, 800 out), 52.3 s; 1 answer ($0.0010 of it) reused from before the run was stopped, not paid again.',
    );
    expect(data.new_cost).toBe(0.002);
  });
});

describe('the account of agreement', () => {
  const GPT = '~openai/gpt-latest';
  const GROK = '~x-ai/grok-latest';
  const agreement = {
    consensus: ['Recursion depth is the cause', 'A loop fixes it.'],
    disagreements: [
      {
        point: 'Whether to raise the stack limit',
        positions: [
          { models: [GPT], view: 'never.' },
          { models: [GROK, 'z/third'], view: 'as a stopgap' },
        ],
        resolution: 'not raised: it only delays the overflow',
      },
    ],
    unique: [
      { model: GROK, point: 'Tail calls are not optimised in Python', kept: true },
      { model: GPT, point: 'Use sys.setrecursionlimit', kept: false },
    ],
  };
  const synthesized = record({ synthesis: { ...record({}).synthesis, agreement } });

  it('shows a few lines after the answer and before the footer, with structuredContent.agreement beside it', () => {
    const { text, data } = result(view(synthesized, ANSWER));
    expect(text).toContain(
      [
        ANSWER,
        '',
        'Agreed: Recursion depth is the cause. A loop fixes it.',
        `Differed: Whether to raise the stack limit (${GPT}: never; ${GROK} and z/third: as a stopgap) → resolved: not raised: it only delays the overflow.`,
        `Only one model: ${GROK}: Tail calls are not optimised in Python (kept); ${GPT}: Use sys.setrecursionlimit (left out).`,
        '',
        '---',
      ].join('\n'),
    );
    expect(data.agreement).toEqual(agreement);
  });

  it('shows nothing, and null, when there is no account', () => {
    const { text, data } = result(view(record({}), ANSWER));
    expect(text).not.toMatch(/^(Agreed|Differed|Only one model):/m);
    expect(data.agreement).toBeNull();
    expect(result(view(record({ synthesis: { ...record({}).synthesis, agreement: null } }), ANSWER)).data.agreement).toBeNull();
  });

  it('keeps the answer and the lines within the result cap, the lines to a quarter of it, saying how many were left out', () => {
    const many = { ...agreement, disagreements: Array.from({ length: 30 }, () => agreement.disagreements[0]!) };
    const long = 'x'.repeat(20_000);
    const { text, data } = result(view(record({ synthesis: { ...record({}).synthesis, agreement: many } }), long), 'both', 4_000);
    const lines = text.slice(text.indexOf('\n\nAgreed: ') + 2, text.indexOf('\n\n---'));
    expect(lines.length).toBeLessThanOrEqual(1_000);
    expect(lines).toMatch(/\n\(\d+ more in structuredContent\.agreement and run\.json\)$/);
    expect(data.answer!.length + lines.length).toBeLessThanOrEqual(4_000 + 200);
    expect(data.answer_cut).toBe(true);
    expect(data.agreement!.disagreements).toHaveLength(30);
  });
});
