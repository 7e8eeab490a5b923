import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readText } from '../src/openrouter/body.js';
import { readStream } from '../src/openrouter/decode.js';
import type { Behaviour } from './support/fake-openrouter.js';
import { fakeWithClient } from './support/fake-with-client.js';
import { waitFor } from './support/wait.js';

/** The stored-answer cap these tests give the client, far below the real one so that they run fast. */
const CAP = 100_000;
const PIECE = 'All work and no play makes a model a long talker, on and on. '.padEnd(64, '.');

const event = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'gen-long', provider: 'Fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A stream of `blocks` reads, each of `eventsPerBlock` events of 64 characters, then the end (if it is ever reached). */
function longStream(blocks: number, eventsPerBlock = 1000): Behaviour {
  const block = Buffer.from(event({ content: PIECE }).repeat(eventsPerBlock));
  return { raw: [...Array<Buffer>(blocks).fill(block), Buffer.from(`${event({ content: '' }, 'stop')}data: [DONE]\n\n`)], pauseMs: 0 };
}

const upstream = fakeWithClient({ maxAnswerChars: CAP, retry: { maxRetries: 0 } });
const chat = (model: string) => ({ model, prompt: 'p', temperature: 0, maxTokens: 100 });

describe('answers longer than the stored-answer cap', () => {
  it('stops at the cap: the request is ended, the answer kept as it arrived and marked truncated with the reason', async () => {
    upstream.fake.on('long/one', longStream(200));
    const aborted = upstream.fake.aborted;
    let written = 0;
    const completion = await upstream.client.complete(chat('long/one'), {
      sink: {
        keepChars: 1000,
        write: (piece) => {
          written += piece.length;
        },
      },
    });
    expect(completion).toMatchObject({ truncated: true, cutShort: expect.stringContaining('passed 100,000 characters') });
    expect(completion.chars).toBeGreaterThanOrEqual(CAP);
    expect(completion.chars).toBeLessThan(CAP + PIECE.length);
    expect(written).toBe(completion.chars);
    expect(completion.content).toBe(PIECE.repeat(Math.ceil(1000 / 64)).slice(0, 1000));
    await waitFor(() => upstream.fake.aborted === aborted + 1);
  });

  it('ends ten huge streams at once at the cap, each answer kept, with no more read from any of them', async () => {
    const models = Array.from({ length: 10 }, (_, i) => `long/many-${i}`);
    for (const model of models) upstream.fake.on(model, longStream(2000));
    const aborted = upstream.fake.aborted;
    const completions = await Promise.all(
      models.map((model) => upstream.client.complete(chat(model), { sink: { keepChars: 100, write: () => undefined } })),
    );
    for (const completion of completions) {
      expect(completion.truncated).toBe(true);
      expect(completion.chars).toBeLessThan(CAP + PIECE.length);
    }
    await waitFor(() => upstream.fake.aborted === aborted + models.length);
  });

  it('keeps a whole JSON answer longer than the cap only up to it, marked truncated', async () => {
    upstream.fake.on('long/json', {
      body200: { choices: [{ index: 0, message: { content: 'y'.repeat(CAP + 5) }, finish_reason: 'stop' }] },
    });
    const completion = await upstream.client.complete(chat('long/json'));
    expect(completion).toMatchObject({ truncated: true, chars: CAP + 5, cutShort: expect.stringContaining('the answer passed') });
    expect(completion.content).toHaveLength(CAP);
  });

  it('fails as truncated, with the reason, when the reasoning alone passes the cap before any answer', async () => {
    const block = Buffer.from(event({ reasoning: PIECE }).repeat(1000));
    upstream.fake.on('long/thinking', { raw: Array<Buffer>(100).fill(block), pauseMs: 0 });
    const error = await upstream.client.complete(chat('long/thinking')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'truncated', message: expect.stringContaining('the reasoning passed 100,000 characters') });
  });

  it('refuses a whole body longer than it may read, without reading the rest', async () => {
    async function* endless() {
      for (;;) yield Buffer.alloc(1024, 'z');
    }
    await expect(readText(endless(), 10 * 1024)).rejects.toMatchObject({ kind: 'bad_body' });
  });
});

describe('a sink slower than the network', () => {
  it('reads no more from the network while the sink asks to wait, then reads the rest', async () => {
    upstream.fake.on('slow/disk', longStream(50, 20));
    let received = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sink = {
      keepChars: 10,
      write: (piece: string) => {
        received += piece.length;
        return received > 10_000 ? held : undefined;
      },
    };
    const completion = upstream.client.complete(chat('slow/disk'), { sink });
    await waitFor(() => received > 10_000);
    const whenHeld = received;
    // Real time: only time passing shows that nothing more is read while the sink holds the stream.
    await sleep(300);
    // At most the rest of the network read being parsed when the sink asked to wait.
    expect(received - whenHeld).toBeLessThanOrEqual(20 * PIECE.length);
    release();
    expect(await completion).toMatchObject({ chars: 50 * 20 * PIECE.length, truncated: false });
    expect(received).toBe(50 * 20 * PIECE.length);
  });
});

describe('a stream at wire speed', () => {
  it('is read one network read per turn of the event loop, so that it cannot hold the loop (nor the disk’s completions) for long', async () => {
    // Fifty reads all there at once, as libuv finds a busy socket (it reads one up to 32 times in a turn).
    const reads = Array.from({ length: 50 }, () => Buffer.from(event({ content: 'x' }).repeat(100)));
    reads.push(Buffer.from(`${event({ content: '' }, 'stop')}data: [DONE]\n\n`));
    let piecesThisTurn = 0;
    let most = 0;
    let ticking = true;
    const tick = () => {
      most = Math.max(most, piecesThisTurn);
      piecesThisTurn = 0;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const sink = { keepChars: 10, write: () => void piecesThisTurn++ };
    const draft = await readStream(Readable.from(reads), () => undefined, { contentStarted: false }, sink, CAP);
    ticking = false;
    tick();
    expect(draft.chars).toBe(5000);
    // The pieces of one read, maybe two, between turns; never the whole stream in one.
    expect(most).toBeLessThanOrEqual(2 * 100);
  });
});
