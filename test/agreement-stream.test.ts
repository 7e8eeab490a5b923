import { describe, expect, it } from 'vitest';
import { replyReader } from '../src/run/agreement/reply.js';
import { AGREEMENT_MARKER } from '../src/run/agreement/section.js';
import { fakeWithClient } from './support/fake-with-client.js';

/**
 * The reply of a synthesizer, streamed by the fake OpenRouter in two content deltas split at every
 * point (a marker, a multibyte character or a surrogate pair cut in two), read through the real
 * client into the synthesis's reader: the answer is always whole, the account always read.
 */
const upstream = fakeWithClient({ retry: { maxRetries: 0 } });

const ANSWER = 'Réponse: 日本語 🙂 — done.';
const ACCOUNT = '{"consensus":["ça"],"disagreements":[],"unique":[{"candidate":"B","point":"🙂","kept":false}]}';
const REPLY = `${ANSWER}\n\n${AGREEMENT_MARKER}\n${ACCOUNT}`;

/** SSE lines: each piece a content delta, then finish_reason stop and [DONE]. */
function deltas(pieces: string[]): string[] {
  const event = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  return [...pieces.flatMap((piece) => [event({ content: piece }, null), '']), event({}, 'stop'), '', 'data: [DONE]', ''];
}

describe('an account split across stream chunks, through the client', () => {
  it('is read whole, and the answer kept apart, at every split point', async () => {
    for (let at = 0; at <= REPLY.length; at++) {
      const reader = replyReader([
        { label: 'A', model: 'vendor/a' },
        { label: 'B', model: 'vendor/b' },
      ]);
      upstream.fake.on('split/synth', { sse: deltas([REPLY.slice(0, at), REPLY.slice(at)].filter(Boolean)) });
      const completion = await upstream.client.complete(
        { model: 'split/synth', prompt: 'p', temperature: 0, maxTokens: 1000 },
        { sink: reader.sink },
      );
      const told = reader.read('split/synth', completion);
      expect(told.answer, `split at ${at}`).toBe(ANSWER);
      expect(told.agreement, `split at ${at}`).toEqual({
        consensus: ['ça'],
        disagreements: [],
        unique: [{ model: 'vendor/b', point: '🙂', kept: false }],
      });
      expect(told.warning).toBeUndefined();
    }
  });
});
