import { UpstreamError } from '../errors.js';
import { thousands } from '../text/locale-free.js';
import { readText } from './body.js';
import { parseBody } from './chunk.js';
import { ChunkShape } from './chunk-shape.js';
import { absorb, emptyDraft, isCapped, type ContentSink, type Draft } from './draft.js';
import { errorFromObject } from './error-map.js';
import { SseParser } from './sse.js';
import type { CompletionBody } from './schemas.js';
import type { TokenUsage } from './usage.js';

export { MAX_ANSWER_CHARS, type ContentSink } from './draft.js';

/** What is read of a response's body (undici's, or any readable stream). */
type Body = AsyncIterable<Uint8Array> & { destroyed: boolean; destroy(): unknown };

/** A completion as the client returns it, before the client adds how many attempts it took. */
export interface DecodedCompletion {
  /** The answer, or with a sink its first `keepChars` characters. */
  content: string;
  /** The whole answer's length. */
  chars: number;
  /** The model's reasoning, kept for the record, never fed to synthesis. */
  reasoning: string;
  finishReason: string | undefined;
  /** The answer is not whole: it stopped at max_tokens, or we stopped it at the cap (`cutShort` then says so). */
  truncated: boolean;
  /** Set only when we stopped reading the answer ourselves, at the stored-answer cap: why, in words. */
  cutShort?: string;
  usage: TokenUsage | undefined;
  provider: string | undefined;
}

/**
 * A streamed completion: the SSE events of the body, read from its bytes. The body is read
 * only as fast as the sink takes the text: when the sink asks to wait, no more is read (and
 * TCP slows the sender) until it has caught up.
 */
export async function readStream(
  body: Body,
  heardFrom: () => void,
  state: { contentStarted: boolean },
  sink: ContentSink | undefined,
  capChars: number,
): Promise<Draft> {
  const draft = emptyDraft(sink, capChars);
  const chunks = new ChunkShape();
  const absorbChunk = (body: CompletionBody, content?: string) => absorb(draft, body, content);
  let done = false;
  const parser = new SseParser((data) => {
    if (data.trim() === '[DONE]') {
      done = true;
      return false;
    }
    chunks.read(data, absorbChunk);
    if (draft.chars > 0) state.contentStarted = true;
    // A mid-stream error ends the answer: never hand a half answer to synthesis. So does the cap.
    return !(draft.error || draft.finishReason === 'error' || isCapped(draft));
  });
  try {
    for await (const bytes of body) {
      heardFrom();
      // Read on to the end after [DONE]: leaving the loop early would destroy the body,
      // and with it a connection the pool could reuse.
      if (done) continue;
      if (!parser.push(bytes) && !done) return draft;
      const wait = draft.backpressure;
      draft.backpressure = undefined;
      await (wait ?? nextTurn());
    }
    parser.end();
  } catch (caught) {
    // The answer was complete at [DONE]; what happens to the connection after it does not matter.
    if (done) return draft;
    throw caught;
  } finally {
    // Leaving early closes the connection, which tells OpenRouter to stop generating.
    if (!done && !body.destroyed) body.destroy();
  }
  if (!done && draft.finishReason === undefined && !isCapped(draft)) {
    // The connection ended cleanly, but the answer did not: a proxy cut it short.
    throw new UpstreamError({ kind: 'network', message: 'the stream ended before the answer was complete (no finish_reason, no [DONE])' });
  }
  return draft;
}

/** A completion sent as one JSON body, by a server that does not stream. */
export async function readWholeBody(
  body: Body,
  state: { contentStarted: boolean },
  sink: ContentSink | undefined,
  capChars: number,
): Promise<Draft> {
  const draft = emptyDraft(sink, capChars);
  absorb(draft, parseBody(await readText(body)));
  // Content given (to the sink, too) must not be given again by a retry.
  state.contentStarted = draft.chars > 0;
  return draft;
}

/**
 * The draft as a completion, or the typed failure it really is. An answer with no
 * content but some reasoning fails as `truncated` when max_tokens ran out, else as
 * `empty`; both errors carry the reasoning.
 */
export function completionFrom(draft: Draft, maxTokens: number): DecodedCompletion {
  if (draft.error) throw errorFromObject(draft.error);
  if (draft.finishReason === 'error') {
    throw new UpstreamError({
      kind: 'provider',
      message: `the provider${draft.provider ? ` (${draft.provider})` : ''} stopped with finish_reason "error"`,
    });
  }
  const content = draft.content.text();
  // All blank only if what was not kept is nothing: the kept part is thousands of characters.
  if (!/\S/.test(content) && draft.chars === content.length) throw noContentError(draft, maxTokens);
  return {
    content,
    chars: draft.chars,
    reasoning: draft.reasoning.text(),
    finishReason: draft.finishReason,
    truncated: draft.finishReason === 'length' || isCapped(draft),
    ...(isCapped(draft) ? { cutShort: cutShortMessage(draft) } : {}),
    usage: draft.usage,
    provider: draft.provider,
  };
}

function cutShortMessage(draft: Draft): string {
  const what = draft.chars >= draft.capChars ? 'the answer' : 'the reasoning';
  return `${what} passed ${thousands(draft.capChars)} characters, the most kept of one answer: the request was ended there`;
}

function noContentError(draft: Draft, maxTokens: number): UpstreamError {
  const text = draft.reasoning.text();
  const reasoning = text.trim() === '' ? undefined : text;
  const after = reasoning ? `, after ${characters(reasoning.length)} of reasoning` : '';
  if (isCapped(draft)) return new UpstreamError({ kind: 'truncated', message: `${cutShortMessage(draft)}, with no answer yet`, reasoning });
  if (draft.finishReason === 'length') {
    return new UpstreamError({ kind: 'truncated', message: `max_tokens (${maxTokens}) ran out before any answer${after}`, reasoning });
  }
  return new UpstreamError({
    kind: 'empty',
    message: `the model returned no content${after} (finish_reason: ${draft.finishReason ?? 'none'})`,
    reasoning,
  });
}

const characters = (count: number) => `${count} character${count === 1 ? '' : 's'}`;

/**
 * Lets the event loop go round before the next read. A stream that arrives faster than it is
 * parsed would otherwise be read many times in one turn (libuv reads a socket up to 32 times
 * while it has data), starving the disk's completions and every other stream; now each read
 * waits its turn, and undici pauses the socket while its body is full.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
