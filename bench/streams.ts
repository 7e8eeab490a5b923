/**
 * Streams as a model sends them, built once as bytes so that the fake spends next to nothing
 * serving them (it shares the machine with what is measured): the answer cut into events of a
 * few characters in OpenRouter's chunk shape, a finish chunk with usage, then [DONE]. A server
 * that does not stream (the naive reference) gets the same answer as one JSON body.
 */
import type { Behaviour, FakeOpenRouter } from '../test/support/fake-openrouter.js';

const PROSE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ';

/** `chars` characters of prose: words and spaces, as models write. */
export const prose = (chars: number) => PROSE.repeat(Math.ceil(chars / PROSE.length)).slice(0, chars);

const USAGE = { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cost: 0.0015 };

const chunk = (model: string, choice: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'gen-bench', object: 'chat.completion.chunk', model, provider: 'Bench', choices: [{ index: 0, ...choice }], ...top })}\n\n`;

/** The stream's events, each a string: a keep-alive comment, one event per piece of the answer, the finish with usage, [DONE]. */
export function streamEvents(model: string, pieces: string[]): string[] {
  return [
    ': OPENROUTER PROCESSING\n\n',
    ...pieces.map((piece) => chunk(model, { delta: { role: 'assistant', content: piece }, finish_reason: null })),
    chunk(model, { delta: { content: '' }, finish_reason: 'stop' }, { usage: USAGE }),
    'data: [DONE]\n\n',
  ];
}

/** `text` in pieces of `size` characters. */
export const piecesOf = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/**
 * Scripts `model` on the fake: a streaming client gets `events` (in one write, or one write
 * each `pauseMs` apart when paced: one network read each, as a real model's tokens come); a
 * client that does not ask for a stream gets the answer as one JSON body.
 */
export function serveStream(fake: FakeOpenRouter, model: string, pieces: string[], paced?: { pauseMs: number }): void {
  const events = streamEvents(model, pieces);
  const streamed: Behaviour = paced
    ? { raw: events.map((text) => Buffer.from(text)), pauseMs: paced.pauseMs }
    : { raw: [Buffer.from(events.join(''))], pauseMs: 0 };
  const message = { role: 'assistant', content: pieces.join('') };
  const whole: Behaviour = {
    body200: { id: 'gen-bench', model, provider: 'Bench', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: USAGE },
  };
  fake.on(model, { fromRequest: (request) => (request.body.stream === true ? streamed : whole) });
}
