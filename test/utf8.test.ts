import { describe, expect, it } from 'vitest';
import type { UpstreamError } from '../src/errors.js';
import { readText } from '../src/openrouter/body.js';
import { fakeWithClient } from './support/fake-with-client.js';
import { sseDataOf } from './support/sse.js';

/** Accented Latin (2 bytes), CJK (3 bytes), emoji (4 bytes, and a ZWJ sequence). */
const TEXTS = { accented: 'Café, naïve façade — ½ €', cjk: '日本語と中文의 한국어', emoji: 'ok 🎉 👩‍💻 🇫🇷!' };

/** Every byte offset that falls inside the text's bytes within `body`, where a read could end. */
function splitPoints(body: Buffer, text: string): number[] {
  const start = body.indexOf(Buffer.from(text, 'utf8'));
  expect(start).toBeGreaterThan(0);
  return Array.from({ length: Buffer.byteLength(text) + 1 }, (_, i) => start + i);
}

/** `pieces` as the network reads of a whole body. */
const decodeAll = (pieces: Buffer[]) =>
  readText(
    (async function* () {
      yield* pieces;
    })(),
  );

/** `text` as the data of one event, its bytes in the given reads. */
const eventData = (pieces: Buffer[]) => sseDataOf([Buffer.from('data: '), ...pieces, Buffer.from('\n\n')]);

describe('a body read whole, and an event read from bytes', () => {
  it.each(Object.entries(TEXTS))('decode %s text whichever byte a read ends at, and when every byte is its own read', async (_, text) => {
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at <= bytes.length; at++) {
      const reads = [bytes.subarray(0, at), bytes.subarray(at)];
      expect(await decodeAll(reads), `split at byte ${at}`).toBe(text);
      expect(eventData(reads), `split at byte ${at}`).toEqual([text]);
    }
    const bytewise = [...bytes].map((byte) => Buffer.from([byte]));
    expect(await decodeAll(bytewise)).toBe(text);
    expect(eventData(bytewise)).toEqual([text]);
  });

  it('turn bytes that are not UTF-8, and a character cut off at the very end, into U+FFFD rather than failing', async () => {
    expect(await decodeAll([Buffer.from([0x61, 0xff, 0x62])])).toBe('a\ufffdb');
    expect(await decodeAll([Buffer.from('é', 'utf8').subarray(0, 1)])).toBe('\ufffd');
    expect(eventData([Buffer.from([0x61, 0xff, 0x62])])).toEqual(['a\ufffdb']);
    expect(eventData([Buffer.from('é', 'utf8').subarray(0, 1)])).toEqual(['\ufffd']);
  });
});

describe('client.complete() with multibyte characters split across network reads', () => {
  const upstream = fakeWithClient({ retry: { maxRetries: 0 } });
  let n = 0;

  /** Serves `body` in two reads split at `at`, and returns what the client made of it. */
  async function served(body: Buffer, at: number, extra: { status?: number; contentType?: string } = {}) {
    const model = `m/utf8-${++n}`;
    upstream.fake.on(model, { raw: [body.subarray(0, at), body.subarray(at)], ...extra });
    return upstream.client
      .complete({ model, prompt: 'p', temperature: 0, maxTokens: 100 })
      .catch((error: unknown) => error as UpstreamError);
  }

  it.each(Object.entries(TEXTS))('keeps %s text intact in a streamed answer, whichever byte the read ends at', async (_, text) => {
    const chunk = JSON.stringify({ choices: [{ index: 0, delta: { content: text, reasoning: text }, finish_reason: 'stop' }] });
    const body = Buffer.from(`data: ${chunk}\n\ndata: [DONE]\n\n`, 'utf8');
    for (const at of splitPoints(body, text)) {
      expect(await served(body, at), `split at byte ${at}`).toMatchObject({ content: text, reasoning: text });
    }
  });

  it.each(Object.entries(TEXTS))('keeps %s text intact in a JSON answer, whichever byte the read ends at', async (_, text) => {
    const body = Buffer.from(JSON.stringify({ choices: [{ index: 0, message: { content: text }, finish_reason: 'stop' }] }), 'utf8');
    for (const at of splitPoints(body, text)) {
      expect(await served(body, at, { contentType: 'application/json' }), `split at byte ${at}`).toMatchObject({ content: text });
    }
  });

  it('keeps multibyte text intact in an error body split inside a character', async () => {
    const message = `Modèle indisponible: ${TEXTS.cjk} ${TEXTS.emoji}`;
    const body = Buffer.from(JSON.stringify({ error: { code: 400, message } }), 'utf8');
    for (const at of splitPoints(body, message)) {
      expect(await served(body, at, { status: 400, contentType: 'application/json' }), `split at byte ${at}`).toMatchObject({
        kind: 'http',
        status: 400,
        message,
      });
    }
  });
});
