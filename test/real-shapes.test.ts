import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replyReader } from '../src/prompts/agreement/reply.js';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';
import type { Behaviour } from './support/fake-openrouter.js';
import { fakeWithClient } from './support/fake-with-client.js';

/** Streams in the shapes real providers send, from test/fixtures/streams (see its README). */
const fixture = (name: string) => readFileSync(new URL(`./fixtures/streams/${name}`, import.meta.url), 'utf8');

/** A `.chunks.txt` fixture as the fake's SSE lines: each chunk one event, then [DONE]. */
function chunksStream(name: string): Behaviour {
  const chunks = fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '');
  return { sse: [': OPENROUTER PROCESSING', '', ...chunks.flatMap((chunk) => [`data: ${chunk}`, '']), 'data: [DONE]', ''] };
}

/** A `.reads.jsonl` fixture as the fake's raw reads, each one network read, with the recorded pauses. */
function readsStream(name: string): Behaviour {
  const records = fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { delay_ms?: number; text?: string; base64?: string });
  const raw = records.map((record) =>
    record.delay_ms !== undefined
      ? { pauseMs: record.delay_ms }
      : record.text !== undefined
        ? Buffer.from(record.text, 'utf8')
        : Buffer.from(record.base64!, 'base64'),
  );
  return { raw, pauseMs: 1 };
}

const upstream = fakeWithClient({ retry: { maxRetries: 0 } });

async function complete(model: string, behaviour: Behaviour) {
  upstream.fake.on(model, behaviour);
  return upstream.client.complete({ model, prompt: 'p', temperature: 0, maxTokens: 1000 });
}

describe('streams in the shapes real providers send', () => {
  it('OpenRouter (Claude thinking): reasoning apart from content, multibyte text cut across reads, an event split mid-JSON, usage after finish_reason', async () => {
    const completion = await complete('or/claude-thinking', readsStream('openrouter-claude-thinking.reads.jsonl'));
    expect(completion).toMatchObject({
      content: 'Le café crème — ☕ est populaire; 日本でも人気です。🎉',
      reasoning: 'The user asks about café culture.',
      finishReason: 'stop',
      truncated: false,
      provider: 'Google',
      usage: { prompt_tokens: 43, completion_tokens: 119, reasoning_tokens: 82, total_tokens: 162, cost: 0.001914 },
    });
  });

  it('Mistral (magistral): content given as parts, thinking parts as reasoning and text parts as the answer', async () => {
    const completion = await complete('mistral/magistral', chunksStream('mistral-magistral.chunks.txt'));
    expect(completion).toMatchObject({
      content: '2 + 2 = 4',
      reasoning: 'Two plus two is four.',
      finishReason: 'stop',
      usage: { prompt_tokens: 10, completion_tokens: 46, total_tokens: 56 },
    });
  });

  it('DeepSeek (reasoner): reasoning_content, null content while reasoning, null usage until the last chunk', async () => {
    const completion = await complete('deepseek/reasoner', chunksStream('deepseek-reasoner.chunks.txt'));
    expect(completion).toMatchObject({
      content: 'There are 3.',
      reasoning: "Count the r's: s-t-r-a-w-b-e-r-r-y.",
      usage: { prompt_tokens: 18, completion_tokens: 219, reasoning_tokens: 205, total_tokens: 237 },
    });
  });

  it('Groq (Qwen3): `reasoning` deltas, an empty last delta, usage with timing fields that are not tokens', async () => {
    const completion = await complete('groq/qwen3', chunksStream('groq-qwen3.chunks.txt'));
    expect(completion).toMatchObject({ content: 'Paris.', reasoning: 'Okay, let me think.', finishReason: 'stop' });
    expect(completion.usage).toEqual({ prompt_tokens: 17, completion_tokens: 1107, reasoning_tokens: 963, total_tokens: 1124 });
  });

  it('Azure (model router): a first chunk with no choices, usage in a last chunk with no choices', async () => {
    const completion = await complete('azure/router', chunksStream('azure-router.chunks.txt'));
    expect(completion).toMatchObject({ content: 'Capital of Denmark: København.', reasoning: '', finishReason: 'stop' });
    expect(completion.usage).toEqual({ prompt_tokens: 15, completion_tokens: 78, reasoning_tokens: 64, total_tokens: 93 });
  });

  it('Mistral as a JSON body: a message whose content is parts', async () => {
    const message = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Simple.' },
        { type: 'text', text: 'Four.' },
        { type: 'image_url', image_url: { url: 'x' } },
      ],
    };
    const completion = await complete('mistral/json', { body200: { id: 'j', choices: [{ index: 0, message, finish_reason: 'stop' }] } });
    expect(completion).toMatchObject({ content: 'Four.', reasoning: 'Simple.' });
  });
});

describe('the same streams read by a synthesis that asks for the account of agreement', () => {
  const streams: Array<[string, () => Behaviour, string]> = [
    [
      'or/claude-thinking',
      () => readsStream('openrouter-claude-thinking.reads.jsonl'),
      'Le café crème — ☕ est populaire; 日本でも人気です。🎉',
    ],
    ['mistral/magistral', () => chunksStream('mistral-magistral.chunks.txt'), '2 + 2 = 4'],
    ['deepseek/reasoner', () => chunksStream('deepseek-reasoner.chunks.txt'), 'There are 3.'],
    ['groq/qwen3', () => chunksStream('groq-qwen3.chunks.txt'), 'Paris.'],
    ['azure/router', () => chunksStream('azure-router.chunks.txt'), 'Capital of Denmark: København.'],
  ];
  for (const [model, stream, answer] of streams) {
    for (const format of ['section', 'json'] as const) {
      it(`${model}: the whole answer, no account (it wrote none) and a warning, the reasoning and usage as before (${format})`, async () => {
        const reader = replyReader([{ label: '1', model: 'x/y' }], format);
        const plain = await complete(`${model}-plain`, stream());
        upstream.fake.on(`${model}-synth`, stream());
        const completion = await upstream.client.complete(
          { model: `${model}-synth`, prompt: 'p', temperature: 0, maxTokens: 1000 },
          { sink: reader.sink },
        );
        expect(completion).toEqual({ ...plain, content: '' });
        const told = reader.read('s', completion);
        expect(told).toMatchObject({ answer, agreement: null, warning: expect.stringContaining('gave no account') });
        if (format === 'json') expect(told.warning).toContain('it answered in plain text, not in the JSON object asked for');
        expect(told.answer).not.toContain(AGREEMENT_MARKER);
      });
    }
  }
});

describe('answers that are only reasoning', () => {
  it('fails as empty, carrying the reasoning, when the model stopped without content', async () => {
    const chunk = JSON.stringify({
      choices: [{ index: 0, delta: { content: null, reasoning_content: 'I thought, but said nothing.' }, finish_reason: 'stop' }],
    });
    const error = await complete('reasoning/only', { sse: [`data: ${chunk}`, '', 'data: [DONE]', ''] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'empty', reasoning: 'I thought, but said nothing.' });
    expect((error as Error).message).toBe('the model returned no content, after 28 characters of reasoning (finish_reason: stop)');
  });

  it('fails as truncated, carrying the reasoning, when max_tokens ran out during it', async () => {
    const parts = [{ type: 'thinking', thinking: [{ type: 'text', text: 'x' }] }];
    const chunk = JSON.stringify({ choices: [{ index: 0, delta: { content: parts }, finish_reason: 'length' }] });
    const error = await complete('reasoning/truncated', { sse: [`data: ${chunk}`, '', 'data: [DONE]', ''] }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      kind: 'truncated',
      reasoning: 'x',
      message: 'max_tokens (1000) ran out before any answer, after 1 character of reasoning',
    });
  });
});
