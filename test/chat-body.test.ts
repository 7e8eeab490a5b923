import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest } from '../src/openrouter/chat-body.js';
import { REASONING_EFFORTS } from '../src/config/choices.js';
import { fakeWithClient } from './support/fake-with-client.js';

const upstream = fakeWithClient();

/** What the fake received for one completion of `chat`. */
async function bodySentFor(chat: ChatRequest): Promise<Record<string, unknown>> {
  upstream.fake.on(chat.model, { answer: 'ok' });
  await upstream.client.complete(chat);
  const requests = upstream.fake.requestsFor(chat.model);
  expect(requests).toHaveLength(1);
  return requests[0]!.body;
}

describe('the chat request body OpenRouter receives', () => {
  it('sends a prompt as one user message, and no reasoning parameter unless asked', async () => {
    const body = await bodySentFor({ model: 'm/prompt', prompt: 'Why is the sky blue?', temperature: 0.7, maxTokens: 1000 });
    expect(body).toEqual({
      model: 'm/prompt',
      messages: [{ role: 'user', content: 'Why is the sky blue?' }],
      temperature: 0.7,
      max_tokens: 1000,
      stream: true,
      usage: { include: true },
      stream_options: { include_usage: true },
    });
  });

  it('sends a whole conversation, turn by turn, instead of the prompt when messages are given', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Earlier question' },
      { role: 'assistant', content: 'Earlier answer' },
      { role: 'user', content: 'And the follow-up?' },
    ];
    const body = await bodySentFor({ model: 'm/conversation', prompt: 'And the follow-up?', messages, temperature: 0.2, maxTokens: 50 });
    expect(body.messages).toEqual(messages);
    expect(JSON.stringify(body)).not.toContain('"prompt"');
  });

  it.each(REASONING_EFFORTS)('sends reasoning effort %s as OpenRouter’s unified reasoning parameter', async (effort) => {
    const body = await bodySentFor({ model: `m/effort-${effort}`, prompt: 'p', temperature: 1, maxTokens: 2000, reasoningEffort: effort });
    expect(body.reasoning).toEqual({ effort });
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(body).toMatchObject({ max_tokens: 2000, messages: [{ role: 'user', content: 'p' }] });
  });
});
