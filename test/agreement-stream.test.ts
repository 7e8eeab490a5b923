import { describe, expect, it } from 'vitest';
import type { AgreementFormat } from '../src/prompts/agreement/prompt.js';
import { replyReader } from '../src/prompts/agreement/reply.js';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';
import { fakeWithClient } from './support/fake-with-client.js';

/**
 * The reply of a synthesizer, streamed by the fake OpenRouter in two content deltas split at every
 * point (a marker, an escape, a \uXXXX, a multibyte character or a surrogate pair cut in two), read
 * through the real client into the synthesis's reader: the answer is always whole, the account always read.
 */
const upstream = fakeWithClient({ retry: { maxRetries: 0 } });

const ANSWER = 'Réponse: 日本語 🙂 — done.';
const ACCOUNT = '{"consensus":["ça"],"disagreements":[],"unique":[{"candidate":"B","point":"🙂","kept":false}]}';
/** The answer as a JSON string written with every kind of escape: a pair as two \u escapes, \n, \", \\, \/ and \u00e9. */
const ESCAPED_ANSWER = '"Réponse: 日本語 🙂 \\uD83D\\uDE00 \\u00e9\\n\\"quoted\\" a\\\\b a\\/b\\t— done."';
const REPLIES: Array<[AgreementFormat, string, string]> = [
  ['section', `${ANSWER}\n\n${AGREEMENT_MARKER}\n${ACCOUNT}`, ANSWER],
  ['json', `{"answer": ${ESCAPED_ANSWER}, "agreement": ${ACCOUNT}}`, JSON.parse(ESCAPED_ANSWER) as string],
];

/** SSE lines: each piece a content delta, then finish_reason stop and [DONE]. */
function deltas(pieces: string[]): string[] {
  const event = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}`;
  return [...pieces.flatMap((piece) => [event({ content: piece }, null), '']), event({}, 'stop'), '', 'data: [DONE]', ''];
}

describe('an account split across stream chunks, through the client', () => {
  for (const [format, reply, answer] of REPLIES) {
    it(`is read whole, and the answer kept apart, at every split point (${format})`, async () => {
      for (let at = 0; at <= reply.length; at++) {
        const reader = replyReader(
          [
            { label: 'A', model: 'vendor/a' },
            { label: 'B', model: 'vendor/b' },
          ],
          format,
        );
        upstream.fake.on('split/synth', { sse: deltas([reply.slice(0, at), reply.slice(at)].filter(Boolean)) });
        const completion = await upstream.client.complete(
          { model: 'split/synth', prompt: 'p', temperature: 0, maxTokens: 1000 },
          { sink: reader.sink },
        );
        const told = reader.read('split/synth', completion);
        expect(told.answer, `split at ${at}`).toBe(answer);
        expect(told.agreement, `split at ${at}`).toEqual({
          consensus: ['ça'],
          disagreements: [],
          unique: [{ model: 'vendor/b', point: '🙂', kept: false }],
        });
        expect(told.warning).toBeUndefined();
      }
    });
  }
});
