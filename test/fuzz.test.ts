import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError, type UpstreamErrorKind } from '../src/errors.js';
import type { Completion, OpenRouterClient } from '../src/openrouter/client.js';
import type { StructuredResult } from '../src/present/output-schema.js';
import { testClient } from './support/client.js';
import { startFakeOpenRouter, type Behaviour, type FakeOpenRouter } from './support/fake-openrouter.js';
import { startHarness, type Harness } from './support/harness.js';
import { sseDataOf } from './support/sse.js';

/**
 * Property tests. Every property runs with a fixed seed, so a run in CI sees the same
 * inputs as a run on a laptop; a failure prints the seed, path and shrunk counterexample.
 */
const SEED = 20_240_611;
const runs = (numRuns: number) => ({ seed: SEED, numRuns });

// ---------------------------------------------------------------------------------------
// Unhandled rejections: any one during this file is a failure of the property that ran.

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));
afterEach(async () => {
  // Rejections are reported after the microtask queue drains: give them a moment to show.
  await sleep(20);
  expect(unhandled.splice(0), 'unhandled rejections').toEqual([]);
});

// ---------------------------------------------------------------------------------------
// Shared arbitraries.

const json = fc.jsonValue({ maxDepth: 3 });
const blank = fc
  .array(fc.constantFrom(' ', '\n', '\t', '\r', '\u00a0', '\u2028', '\u3000', '\ufeff'), { maxLength: 6 })
  .map((parts) => parts.join(''));
const loneSurrogates = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
      fc.string({ maxLength: 3 }),
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((parts) => parts.join(''));
/** Repeats a short unit into a few thousand characters: around the prompt limit of the harness below. */
const hugeish = fc
  .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.integer({ min: 300, max: 2500 }))
  .map(([unit, times]) => unit.repeat(times));
const text = fc.oneof(
  { arbitrary: fc.string(), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: blank, weight: 2 },
  { arbitrary: loneSurrogates, weight: 1 },
  { arbitrary: hugeish, weight: 1 },
);

/** JSON as it arrives over the wire: what JSON.stringify drops (undefined) or changes (-0, NaN) is gone. */
const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

// ---------------------------------------------------------------------------------------
// process_prompt with random arguments, through the real server and the SDK client.

const MAX_PROMPT_CHARS = 2000;
const FIELDS = ['prompt', 'models', 'synthesizer_model', 'temperature', 'max_tokens'] as const;
type Field = (typeof FIELDS)[number];

const modelIdArb = fc.oneof({ arbitrary: fc.constantFrom('m/a', 'm/b', 'vendor/model-1'), weight: 2 }, { arbitrary: text, weight: 3 });
/** Arguments the contract accepts, every field present or absent: so that valid calls are common. */
const validArgumentsArb = fc.record(
  {
    prompt: text.filter((value) => value.trim().length > 0 && value.length <= MAX_PROMPT_CHARS),
    models: fc.array(
      modelIdArb.filter((id) => id.trim().length > 0),
      { minLength: 1, maxLength: 4 },
    ),
    synthesizer_model: modelIdArb.filter((id) => id.trim().length > 0),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    max_tokens: fc.integer({ min: 1, max: 1_000_000 }),
  },
  { requiredKeys: ['prompt'] },
);
const randomArgumentsArb = fc
  .tuple(
    fc.record(
      {
        prompt: fc.oneof({ arbitrary: text, weight: 6 }, { arbitrary: json, weight: 1 }),
        models: fc.oneof(
          { arbitrary: fc.array(modelIdArb, { maxLength: 4 }), weight: 4 },
          { arbitrary: fc.array(fc.constant('m/a'), { minLength: 19, maxLength: 22 }), weight: 1 },
          { arbitrary: fc.array(json, { maxLength: 3 }), weight: 1 },
          { arbitrary: json, weight: 1 },
        ),
        synthesizer_model: fc.oneof({ arbitrary: modelIdArb, weight: 3 }, { arbitrary: json, weight: 1 }),
        temperature: fc.oneof(
          { arbitrary: fc.double({ min: 0, max: 2, noNaN: true }), weight: 3 },
          { arbitrary: fc.double(), weight: 2 },
          { arbitrary: json, weight: 1 },
        ),
        max_tokens: fc.oneof(
          { arbitrary: fc.integer({ min: 1, max: 1_000_000 }), weight: 3 },
          { arbitrary: fc.integer(), weight: 1 },
          { arbitrary: fc.double(), weight: 1 },
          { arbitrary: json, weight: 1 },
        ),
      },
      { requiredKeys: [] },
    ),
    // Unknown keys, even `__proto__` and `constructor`, must not matter.
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString')), json, { maxKeys: 3 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));
const argumentsArb = fc
  .oneof({ arbitrary: validArgumentsArb, weight: 1 }, { arbitrary: randomArgumentsArb, weight: 2 })
  .map((args) => overTheWire(args) as Record<string, unknown>);

const isNonBlankString = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;

/** The fields of `args` that the tool must refuse, by the contract of SPEC §5 (an independent oracle). */
function invalidFields(args: Record<string, unknown>): Field[] {
  const get = (key: Field) => (Object.hasOwn(args, key) ? args[key] : undefined);
  const ok: Record<Field, (value: unknown) => boolean> = {
    prompt: (value) => isNonBlankString(value) && value.length <= MAX_PROMPT_CHARS,
    models: (value) =>
      value === undefined || (Array.isArray(value) && value.length >= 1 && value.length <= 20 && value.every(isNonBlankString)),
    synthesizer_model: (value) => value === undefined || isNonBlankString(value),
    temperature: (value) => value === undefined || (typeof value === 'number' && value >= 0 && value <= 2),
    max_tokens: (value) => value === undefined || (Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 1_000_000),
  };
  return FIELDS.filter((field) => !ok[field](get(field)));
}

function firstText(result: CallToolResult): string {
  const [first] = result.content;
  expect(first?.type).toBe('text');
  return (first as { text: string }).text;
}

describe('process_prompt with random arguments (in-process server, SDK client)', () => {
  let fake: FakeOpenRouter;
  let harness: Harness;

  beforeAll(async () => {
    fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
    harness = await startHarness(fake, { PARALLEL_LLM_MAX_PROMPT_CHARS: String(MAX_PROMPT_CHARS) });
  });
  afterAll(async () => {
    await harness?.close();
    await fake?.close();
    if (harness) await rm(harness.outputDir, { recursive: true, force: true });
  });

  it('every call resolves to a CallToolResult: isError naming each bad field, with no upstream call and no progress, for invalid input; a complete answer with strictly increasing progress for valid input', async () => {
    let valid = 0;
    let invalid = 0;
    await fc.assert(
      fc.asyncProperty(argumentsArb, fc.boolean(), async (args, withProgress) => {
        const before = fake.requests.length;
        const progress: Array<{ progress: number; total?: number }> = [];
        const options = withProgress
          ? { onprogress: (update: { progress: number; total?: number }) => void progress.push(update) }
          : undefined;
        const result = (await harness.client.callTool({ name: 'process_prompt', arguments: args }, undefined, options)) as CallToolResult;
        const message = firstText(result);
        expect(message.trim()).not.toBe('');
        const bad = invalidFields(args);
        if (bad.length > 0) {
          invalid++;
          expect(result.isError).toBe(true);
          for (const field of bad) expect(message).toContain(field);
          expect(fake.requests.length, 'upstream requests for invalid input').toBe(before);
          expect(progress).toEqual([]);
        } else {
          valid++;
          expect(result.isError, message).toBeFalsy();
          const data = result.structuredContent as StructuredResult;
          expect(data.status).toBe('complete');
          const models = (args.models as string[] | undefined)?.map((id) => id.trim()) ?? harness.config.models;
          expect(data.models.map((model) => [model.model, model.status])).toEqual(models.map((model) => [model, 'answered']));
          expect(fake.requests.length - before).toBe(models.length + 1);
          if (withProgress) {
            // One step per model and one for synthesis, at least; each above the last, none at or past the total.
            expect(progress.length).toBeGreaterThanOrEqual(models.length + 1);
            progress.forEach((update, i) => {
              if (i > 0) expect(update.progress).toBeGreaterThan(progress[i - 1]!.progress);
              expect(update.progress).toBeLessThan(update.total!);
            });
          }
        }
      }),
      runs(150),
    );
    // The generator must exercise both sides of the contract, or the property says little.
    expect(valid).toBeGreaterThan(20);
    expect(invalid).toBeGreaterThan(20);
  });

  it('arguments that are not an object get a JSON-RPC error or an isError result, and the server keeps answering', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.array(json, { maxLength: 3 }), fc.string(), fc.double(), fc.boolean(), fc.constant(null)).map(overTheWire),
        async (args) => {
          const outcome = await harness.client.callTool({ name: 'process_prompt', arguments: args as never }).then(
            (result) => result as CallToolResult,
            (error: unknown) => error,
          );
          if (outcome instanceof McpError) expect(outcome.message).toMatch(/arguments/);
          else expect((outcome as CallToolResult).isError).toBe(true);
          const next = (await harness.client.callTool({
            name: 'process_prompt',
            arguments: { prompt: 'still there?', models: ['m/a'] },
          })) as CallToolResult;
          expect(next.isError).toBeFalsy();
        },
      ),
      runs(25),
    );
  });
});

// ---------------------------------------------------------------------------------------
// Upstream bodies: whatever the server sends, complete() resolves to a real answer or
// rejects with a typed UpstreamError.

/**
 * Kinds a server that answers (however badly) can cause; never cancelled or timeout here, and
 * network only for a stream that ends before its answer does.
 */
const ANSWER_KINDS: UpstreamErrorKind[] = ['http', 'rate_limited', 'bad_body', 'provider', 'empty', 'truncated', 'network'];

type Outcome = { ok: Completion } | { error: UpstreamError };

let modelCounter = 0;
const freshModel = (prefix: string) => `${prefix}/${++modelCounter}`;

/** complete(), with a guard that turns a hang into a failure rather than a test timeout. */
async function outcomeOf(client: OpenRouterClient, model: string, guardMs = 4000): Promise<Outcome> {
  const guard = new AbortController();
  const hang = sleep(guardMs, 'hang' as const, { signal: guard.signal }).catch(() => 'hang' as const);
  const settled = client.complete({ model, prompt: 'fuzz', temperature: 0.5, maxTokens: 100 }).then(
    (ok) => ({ ok }),
    (error: unknown) => {
      if (!(error instanceof UpstreamError))
        throw new Error(`complete() rejected with a non-UpstreamError: ${String(error)}`, { cause: error });
      return { error };
    },
  );
  const winner = await Promise.race([settled, hang]);
  guard.abort();
  if (winner === 'hang') throw new Error(`complete() for ${model} neither resolved nor rejected within ${guardMs} ms`);
  return winner;
}

/** The common property: a Completion with non-blank content, or an UpstreamError of a known kind. */
function expectAnswerOrTypedError(outcome: Outcome): void {
  if ('ok' in outcome) {
    expect(typeof outcome.ok.content).toBe('string');
    expect(outcome.ok.content.trim()).not.toBe('');
  } else {
    expect(outcome.error).toBeInstanceOf(UpstreamError);
    expect(ANSWER_KINDS).toContain(outcome.error.kind);
    expect(outcome.error.message.trim()).not.toBe('');
  }
}

/** A 200 body shaped roughly like a completion, with every field liable to be wrong. */
const errorObjectArb = fc.record(
  {
    code: fc.oneof(fc.constantFrom(400, 402, 404, 429, 500, 200), fc.string({ maxLength: 8 }), json),
    message: fc.oneof(fc.string(), blank, json),
    metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 3 }), json),
  },
  { requiredKeys: [] },
);
const partArb = fc.record(
  {
    content: fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), blank, fc.constant(null), json),
    reasoning: fc.oneof(fc.string(), fc.constant(null), json),
  },
  { requiredKeys: [] },
);
const choiceArb = fc.record(
  {
    message: fc.oneof(partArb, json),
    delta: fc.oneof(partArb, fc.constant(null)),
    finish_reason: fc.oneof(fc.constantFrom('stop', 'length', 'error', null), json),
    error: fc.oneof(errorObjectArb, fc.constant(null)),
  },
  { requiredKeys: [] },
);
const completionLikeArb = fc.record(
  {
    id: fc.oneof(fc.string(), json),
    provider: fc.oneof(fc.string(), json),
    choices: fc.oneof({ arbitrary: fc.array(choiceArb, { maxLength: 2 }), weight: 4 }, { arbitrary: json, weight: 1 }),
    usage: fc.oneof(
      fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat(), cost: fc.double({ min: 0, max: 1, noNaN: true }) }),
      json,
    ),
    error: fc.oneof({ arbitrary: errorObjectArb, weight: 1 }, { arbitrary: fc.constant(undefined), weight: 3 }),
  },
  { requiredKeys: [] },
);

/** What absorb() reads from a single body: the first choice's delta, else its message. */
function contentOf(body: unknown): unknown {
  const choice = (body as { choices?: Array<Record<string, unknown>> } | null)?.choices?.[0];
  const part = (choice?.delta ?? choice?.message) as { content?: unknown } | undefined;
  return Array.isArray(part?.content) ? textOfParts(part.content) : part?.content;
}

/** The answer in `content` given as parts: the text of its text parts. */
const textOfParts = (parts: unknown[]) =>
  parts
    .map((part) =>
      isObject(part) && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
const parsesAsJson = (raw: string) => {
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
};

describe('client.complete() against random and malformed upstream bodies', () => {
  let fake: FakeOpenRouter;
  let client: OpenRouterClient;

  beforeAll(async () => {
    fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
    client = testClient(fake.url, { timeoutMs: 2000, idleTimeoutMs: 1000, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
  });
  afterAll(async () => {
    await client?.close();
    await fake?.close();
  });

  async function serve(behaviour: Behaviour): Promise<Outcome> {
    const model = freshModel('body');
    fake.on(model, behaviour);
    return outcomeOf(client, model);
  }

  it('any JSON value as a 200 body: a non-blank answer equal to the body’s content, or a typed error (bad_body when the body is not an object)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(json, completionLikeArb.map(overTheWire)), async (body) => {
        const outcome = await serve({ body200: body });
        expectAnswerOrTypedError(outcome);
        if (!isObject(body)) expect('error' in outcome && outcome.error.kind).toBe('bad_body');
        if ('ok' in outcome) expect(outcome.ok.content).toBe(contentOf(body));
      }),
      runs(150),
    );
  });

  it('any string as a raw 200 JSON body: bad_body unless it parses as JSON, else an answer or a typed error', async () => {
    const raw = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.json(),
      // Valid JSON cut short, as a dropped connection would leave it.
      fc.tuple(fc.json(), fc.nat()).map(([whole, cut]) => whole.slice(0, cut % Math.max(1, whole.length))),
    );
    await fc.assert(
      fc.asyncProperty(raw, async (body) => {
        const outcome = await serve({ status: 200, body });
        expectAnswerOrTypedError(outcome);
        if (!parsesAsJson(body)) expect('error' in outcome && outcome.error.kind).toBe('bad_body');
      }),
      runs(100),
    );
  });

  it('any error status 400-599 with any body: rejects with kind http (rate_limited for 429) carrying that status', async () => {
    const body = fc.oneof(
      fc.string(),
      fc.json(),
      errorObjectArb.map((error) => JSON.stringify({ error })),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 400, max: 599 }), body, async (status, text) => {
        const outcome = await serve({ status, body: text });
        expect('error' in outcome).toBe(true);
        const { error } = outcome as { error: UpstreamError };
        expect(error.kind).toBe(status === 429 ? 'rate_limited' : 'http');
        expect(error.status).toBe(status);
        expect(error.message.trim()).not.toBe('');
      }),
      runs(60),
    );
  });

  it('any lines of text as an SSE stream, with pauses: a non-blank answer or a typed error, never a hang', async () => {
    const line = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'binary' }).map((value) => `data: ${value}`),
      json.map((value) => `data: ${JSON.stringify(value)}`),
      completionLikeArb.map((value) => `data: ${JSON.stringify(value)}`),
      fc.constantFrom('', ': OPENROUTER PROCESSING', 'data: [DONE]', '\r', 'event: message', 'data:'),
    );
    const item = fc.oneof(
      { arbitrary: line, weight: 9 },
      { arbitrary: fc.integer({ min: 0, max: 3 }).map((pauseMs) => ({ pauseMs })), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 12 }), async (sse) => {
        expectAnswerOrTypedError(await serve({ sse }));
      }),
      runs(120),
    );
  });
});

// ---------------------------------------------------------------------------------------
// SSE streams built from known fragments, sent as bytes split at random points (even
// inside a UTF-8 sequence or between CR and LF), against a model of what the client must do.

type Fragment =
  | { t: 'comment' }
  | { t: 'field'; line: string }
  | { t: 'blank' }
  | { t: 'done' }
  | { t: 'chunk'; content: string | null | ContentPart[]; finish: 'stop' | 'length' | 'error' | null; reasoning?: string }
  | { t: 'usage'; usage: unknown }
  | { t: 'error'; code: number | string | undefined; message: string; inChoice: boolean }
  | { t: 'invalid'; data: string }
  | { t: 'notObject'; data: string }
  | { t: 'wrongShape'; data: string };

type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: Array<{ type: 'text'; text: string }> }
  | { type: 'image_url'; image_url: { url: string } };
/** `content` as parts, as Mistral sends it: text is the answer; thinking and anything else are not. */
const contentPartsArb = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 8 }).map((text): ContentPart => ({ type: 'text', text })),
    fc.string({ maxLength: 5 }).map((text): ContentPart => ({ type: 'thinking', thinking: [{ type: 'text', text }] })),
    fc.constant<ContentPart>({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }),
  ),
  { maxLength: 3 },
);
/** Usage as OpenRouter reports it, or as broken proxies do: none of it may cost the answer. */
const usageArb = fc.oneof(
  fc.constant({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, cost: 0.001 }),
  fc.record(
    { prompt_tokens: fc.oneof(fc.double(), fc.string(), json), cost: fc.oneof(fc.double(), fc.string({ maxLength: 6 }), json) },
    { requiredKeys: [] },
  ),
  json,
);
const oneLine = (s: string) => s.replace(/[\r\n]/g, ' ');
const fragmentArb: fc.Arbitrary<Fragment> = fc.oneof(
  { arbitrary: fc.constant({ t: 'comment' as const }), weight: 2 },
  {
    arbitrary: fc
      .constantFrom('event: message', 'id: 42', 'retry: 1000', ':data: not an event')
      .map((line) => ({ t: 'field' as const, line })),
    weight: 1,
  },
  { arbitrary: fc.constant({ t: 'blank' as const }), weight: 1 },
  { arbitrary: fc.constant({ t: 'done' as const }), weight: 1 },
  {
    arbitrary: fc.record(
      {
        t: fc.constant('chunk' as const),
        content: fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 12 }),
          fc.string({ unit: 'binary', maxLength: 6 }),
          blank,
          fc.constant(null),
          contentPartsArb,
        ),
        finish: fc.oneof(
          { arbitrary: fc.constant(null), weight: 6 },
          { arbitrary: fc.constantFrom('stop' as const, 'length' as const, 'error' as const), weight: 1 },
        ),
        reasoning: fc.string({ maxLength: 5 }),
      },
      { requiredKeys: ['t', 'content', 'finish'] },
    ),
    weight: 8,
  },
  { arbitrary: usageArb.map((usage) => ({ t: 'usage' as const, usage })), weight: 1 },
  {
    arbitrary: fc.record({
      t: fc.constant('error' as const),
      code: fc.oneof(fc.constantFrom(400, 402, 429, 500, 200), fc.constantFrom('server_error', undefined)),
      message: fc.oneof(fc.string({ maxLength: 10 }), blank),
      inChoice: fc.boolean(),
    }),
    weight: 1,
  },
  {
    arbitrary: fc
      .oneof(
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.json().map((whole) => whole.slice(0, -1)),
      )
      .map(oneLine)
      .filter((data) => !parsesAsJson(data) && data.trim() !== '[DONE]')
      .map((data) => ({ t: 'invalid' as const, data })),
    weight: 1,
  },
  {
    arbitrary: fc.oneof(fc.array(json, { maxLength: 2 }), fc.string(), fc.double(), fc.boolean(), fc.constant(null)).map((value) => ({
      t: 'notObject' as const,
      data: JSON.stringify(value),
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom(
        '{"choices":5}',
        '{"choices":{"0":{}}}',
        '{"choices":[{"delta":{"content":5}}]}',
        '{"choices":[7]}',
        '{"error":"boom"}',
        '{"choices":[{"finish_reason":1}]}',
      )
      .map((data) => ({ t: 'wrongShape' as const, data })),
    weight: 1,
  },
);

function dataOf(fragment: Fragment): string | undefined {
  switch (fragment.t) {
    case 'done':
      return '[DONE]';
    case 'chunk':
      return JSON.stringify({
        id: 'gen-fuzz',
        provider: 'Fuzz',
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: fragment.content,
              ...(fragment.reasoning === undefined ? {} : { reasoning: fragment.reasoning }),
            },
            finish_reason: fragment.finish,
          },
        ],
      });
    case 'usage':
      return JSON.stringify({ id: 'gen-fuzz', choices: [], usage: fragment.usage });
    case 'error': {
      const error = { ...(fragment.code === undefined ? {} : { code: fragment.code }), message: fragment.message };
      return JSON.stringify(
        fragment.inChoice ? { choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', error }] } : { error },
      );
    }
    case 'invalid':
    case 'notObject':
    case 'wrongShape':
      return fragment.data;
    default:
      return undefined;
  }
}

/** The stream's text: each fragment one event (or a bare blank line), with the chosen line ending. */
function streamText(fragments: Fragment[], eol: string): string {
  return fragments
    .map((fragment) => {
      if (fragment.t === 'blank') return eol;
      if (fragment.t === 'comment') return `: OPENROUTER PROCESSING${eol}${eol}`;
      if (fragment.t === 'field') return `${fragment.line}${eol}${eol}`;
      return `data: ${dataOf(fragment)}${eol}${eol}`;
    })
    .join('');
}

type Expected = { content: string; truncated: boolean } | { kind: UpstreamErrorKind; status?: number };

/** A model of the client: what a stream of these fragments must come to. */
function expectedOutcome(fragments: Fragment[]): Expected {
  let content = '';
  let finish: string | null = null;
  let done = false;
  for (const fragment of fragments) {
    if (fragment.t === 'done') {
      done = true; // everything after [DONE] is read and ignored
      break;
    }
    if (fragment.t === 'invalid' || fragment.t === 'notObject' || fragment.t === 'wrongShape') return { kind: 'bad_body' };
    if (fragment.t === 'chunk') {
      content += Array.isArray(fragment.content) ? textOfParts(fragment.content) : (fragment.content ?? '');
      finish = fragment.finish ?? finish;
      if (finish === 'error') return { kind: 'provider' };
    }
    if (fragment.t === 'error') {
      const status = typeof fragment.code === 'number' ? fragment.code : undefined;
      if (status !== undefined && status >= 400) return { kind: status === 429 ? 'rate_limited' : 'http', status };
      return { kind: 'provider' };
    }
  }
  if (!done && finish === null) return { kind: 'network' }; // the stream ended before the answer did
  if (content.trim() === '') return { kind: finish === 'length' ? 'truncated' : 'empty' };
  return { content, truncated: finish === 'length' };
}

/** Splits bytes at the given fractions, so pieces may end inside a UTF-8 sequence or between CR and LF. */
function splitBytes(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) pieces.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return pieces;
}

describe('client.complete() against SSE streams of random fragments, split at random bytes', () => {
  let raw: FakeOpenRouter;
  let client: OpenRouterClient;

  beforeAll(async () => {
    raw = await startFakeOpenRouter();
    client = testClient(raw.url, { timeoutMs: 2000, idleTimeoutMs: 1000, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
  });
  afterAll(async () => {
    await client?.close();
    await raw?.close();
  });

  const eolArb = fc.constantFrom('\n', '\r\n');
  // Most real streams end with [DONE]; some are cut short. Both must come out right.
  const streamArb = fc
    .tuple(fc.array(fragmentArb, { maxLength: 10 }), fc.boolean())
    .map(([fragments, ended]) => (ended ? [...fragments, { t: 'done' as const }] : fragments));
  const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { maxLength: 12 });

  it('resolves to exactly the streamed content, or rejects with the UpstreamError kind the stream calls for', async () => {
    let answered = 0;
    let failed = 0;
    await fc.assert(
      fc.asyncProperty(streamArb, eolArb, cutsArb, async (fragments, eol, cuts) => {
        const model = freshModel('sse');
        raw.on(model, { raw: splitBytes(Buffer.from(streamText(fragments, eol), 'utf8'), cuts), pauseMs: 0 });
        const outcome = await outcomeOf(client, model);
        expectAnswerOrTypedError(outcome);
        const expected = expectedOutcome(fragments);
        if ('content' in expected) {
          answered++;
          expect('ok' in outcome ? { content: outcome.ok.content, truncated: outcome.ok.truncated } : outcome.error).toEqual(expected);
        } else {
          failed++;
          expect('error' in outcome ? { kind: outcome.error.kind, status: outcome.error.status } : outcome.ok).toEqual({
            status: undefined,
            ...expected,
          });
        }
      }),
      runs(200),
    );
    expect(answered).toBeGreaterThan(20);
    expect(failed).toBeGreaterThan(20);
  });

  it('random byte soup with valid chunks mixed in, split at random bytes: a non-blank answer or a typed error', async () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.constantFrom('\n', '\r\n', '\r', '\n\n', 'data: ', ': OPENROUTER PROCESSING\n\n', 'data: [DONE]\n\n'),
      fragmentArb.map((fragment) => streamText([fragment], '\n')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), cutsArb, async (pieces, cuts) => {
        const model = freshModel('soup');
        raw.on(model, { raw: splitBytes(Buffer.from(pieces.join(''), 'utf8'), cuts), pauseMs: 0 });
        expectAnswerOrTypedError(await outcomeOf(client, model));
      }),
      runs(120),
    );
  });
});

// ---------------------------------------------------------------------------------------
// SseParser alone: random events, random line endings, random chunking at any byte.

type SseEvent = { data: string[]; extra: string[] };

const valueArb = fc
  .tuple(
    fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 10 }), fc.json()),
    // Leading spaces beyond the one that `data: ` takes are part of the value.
    fc.constantFrom('', '', ' ', '  ', '\t'),
  )
  .map(([value, lead]) => oneLine(lead + value));
const sseEventArb: fc.Arbitrary<SseEvent> = fc.record({
  data: fc.array(valueArb, { maxLength: 3 }),
  // Comments and other fields, which must never reach the caller.
  extra: fc.array(
    fc.oneof(
      fc.constantFrom(': OPENROUTER PROCESSING', 'event: message', 'id: 7', 'retry: 10', ':data: not an event', ':'),
      valueArb.map((value) => `:${value}`),
    ),
    { maxLength: 2 },
  ),
});

describe('SseParser on random chunkings', () => {
  it('yields exactly the data payload of each event that has data, lines joined by \\n, for any line endings and any chunking', async () => {
    const streamArb = fc.record({
      events: fc.array(sseEventArb, { maxLength: 8 }),
      eols: fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 1, maxLength: 4 }),
      // The last event may end with a blank line, a single line ending, or nothing.
      ending: fc.constantFrom('blank', 'eol', 'none'),
      spaceAfterColon: fc.boolean(),
      cuts: fc.array(fc.nat(), { maxLength: 15 }),
    });
    await fc.assert(
      fc.asyncProperty(streamArb, async ({ events, eols, ending, spaceAfterColon, cuts }) => {
        let n = 0;
        const eol = () => eols[n++ % eols.length]!;
        let stream = '';
        events.forEach((event, i) => {
          // Fields may sit before, between or after data lines: here, before and after.
          const lines = [
            ...event.extra.slice(0, 1),
            ...event.data.map((value) => (spaceAfterColon || value.startsWith(' ') ? `data: ${value}` : `data:${value}`)),
            ...event.extra.slice(1),
          ];
          const last = i === events.length - 1;
          if (lines.length === 0) return;
          stream += lines.map((line, j) => (last && ending === 'none' && j === lines.length - 1 ? line : line + eol())).join('');
          if (!last || ending === 'blank') stream += eol();
        });
        // Cut at bytes: a read may end inside a UTF-8 sequence. Text goes over the wire as UTF-8,
        // so what comes out is the text as UTF-8 keeps it (a lone surrogate becomes U+FFFD).
        const bytes = Buffer.from(stream, 'utf8');
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const reads = [...points, bytes.length].map((point, i, all) => bytes.subarray(i === 0 ? 0 : all[i - 1], point));
        const asSent = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
        expect(sseDataOf(reads)).toEqual(events.filter((event) => event.data.length > 0).map((event) => asSent(event.data.join('\n'))));
      }),
      runs(400),
    );
  });
});
