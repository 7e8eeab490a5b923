import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors.js';
import { readText, utf8Chunks } from './body.js';
import { badBody, errorFromObject } from './error-map.js';
import { completionBodySchema, textPartSchema, thinkingPartSchema, type CompletionBody, type ErrorObject, type MessagePart } from './schemas.js';
import { sseData } from './sse.js';
import { convertUsage, type TokenUsage } from './usage.js';

/**
 * Where a long answer's text goes as it arrives, so that it never has to be held whole: the
 * completion keeps only the first `keepChars` characters, and `write` gets every piece.
 */
export interface ContentSink {
  keepChars: number;
  write(piece: string): void;
}

/** The answer as it builds up, from one JSON body or many stream chunks. */
export interface Draft {
  /** The content, or its first `sink.keepChars` characters. */
  content: string;
  /** The whole content's length. */
  chars: number;
  sink: ContentSink | undefined;
  reasoning: string;
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  error: ErrorObject | undefined;
  provider: string | undefined;
}

/** A completion as the client returns it, before the client adds how many attempts it took. */
export interface DecodedCompletion {
  /** The answer, or with a sink its first `keepChars` characters. */
  content: string;
  /** The whole answer's length. */
  chars: number;
  /** The model's reasoning, kept for the record, never fed to synthesis. */
  reasoning: string;
  finishReason: string | undefined;
  /** The answer stopped at max_tokens. */
  truncated: boolean;
  usage: TokenUsage | undefined;
  provider: string | undefined;
}

function emptyDraft(sink: ContentSink | undefined): Draft {
  return { content: '', chars: 0, sink, reasoning: '', finishReason: undefined, usage: undefined, error: undefined, provider: undefined };
}

/** A streamed completion: the SSE events of the body, decoded as one UTF-8 text. */
export async function readStream(
  body: Dispatcher.ResponseData['body'],
  heardFrom: () => void,
  state: { contentStarted: boolean },
  sink?: ContentSink,
): Promise<Draft> {
  const draft = emptyDraft(sink);
  let done = false;
  try {
    for await (const data of sseData(utf8Chunks(body, heardFrom))) {
      // Read on to the end after [DONE]: leaving the loop early would destroy the body,
      // and with it a connection the pool could reuse.
      if (done || data.trim() === '[DONE]') {
        done = true;
        continue;
      }
      absorb(draft, parseBody(data));
      if (draft.content.length > 0) state.contentStarted = true;
      // A mid-stream error ends the answer: never hand a half answer to synthesis.
      if (draft.error || draft.finishReason === 'error') return draft;
    }
  } catch (caught) {
    // The answer was complete at [DONE]; what happens to the connection after it does not matter.
    if (done) return draft;
    throw caught;
  } finally {
    // Leaving early closes the connection, which tells OpenRouter to stop generating.
    if (!done && !body.destroyed) body.destroy();
  }
  if (!done && draft.finishReason === undefined) {
    // The connection ended cleanly, but the answer did not: a proxy cut it short.
    throw new UpstreamError({ kind: 'network', message: 'the stream ended before the answer was complete (no finish_reason, no [DONE])' });
  }
  return draft;
}

/** A completion sent as one JSON body, by a server that does not stream. */
export async function readWholeBody(body: Dispatcher.ResponseData['body'], state: { contentStarted: boolean }, sink?: ContentSink): Promise<Draft> {
  const draft = emptyDraft(sink);
  absorb(draft, parseBody(await readText(body)));
  // Content given (to the sink, too) must not be given again by a retry.
  state.contentStarted = draft.chars > 0;
  return draft;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badBody(`the answer was not JSON: ${JSON.stringify(text.slice(0, 120))}`);
  }
}

/** One whole completion, or one stream chunk, checked against the documented shape. */
function parseBody(text: string): CompletionBody {
  const parsed = completionBodySchema.safeParse(parseJson(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badBody(`the answer did not have the documented shape (${issue?.path.join('.')}: ${issue?.message})`);
  }
  return parsed.data;
}

/** Folds one body or chunk into the draft. Only the first choice is read: we ask for one. */
function absorb(draft: Draft, body: CompletionBody): void {
  const choice = body.choices?.[0];
  const part = choice?.delta ?? choice?.message;
  if (part) {
    const { text, thinking } = contentParts(part.content);
    addContent(draft, text);
    // OpenRouter says `reasoning`; DeepSeek, Qwen and others `reasoning_content`; Mistral sends thinking parts.
    draft.reasoning += (part.reasoning ?? part.reasoning_content ?? '') + thinking;
  }
  draft.finishReason = choice?.finish_reason ?? draft.finishReason;
  draft.error = body.error ?? choice?.error ?? draft.error;
  draft.usage = convertUsage(body.usage) ?? draft.usage;
  draft.provider = body.provider ?? draft.provider;
}

/** Keeps what the draft may hold of `text` and gives all of it to the sink. */
function addContent(draft: Draft, text: string): void {
  if (text === '') return;
  draft.chars += text.length;
  const room = (draft.sink?.keepChars ?? Infinity) - draft.content.length;
  if (room > 0) draft.content += room >= text.length ? text : text.slice(0, room);
  draft.sink?.write(text);
}

/**
 * `content` as a string, or as parts (Mistral): text parts are the answer, thinking parts
 * are reasoning, anything else (images, references) is not text we keep.
 */
function contentParts(content: MessagePart['content']): { text: string; thinking: string } {
  if (typeof content === 'string') return { text: content, thinking: '' };
  let text = '';
  let thinking = '';
  for (const part of content ?? []) {
    text += textOf(part);
    const parsed = thinkingPartSchema.safeParse(part);
    if (parsed.success) thinking += typeof parsed.data.thinking === 'string' ? parsed.data.thinking : parsed.data.thinking.map(textOf).join('');
  }
  return { text, thinking };
}

/** The text of a text part; nothing for any other part. */
function textOf(part: unknown): string {
  const parsed = textPartSchema.safeParse(part);
  return parsed.success ? parsed.data.text : '';
}

/**
 * The draft as a completion, or the typed failure it really is. An answer with no
 * content but some reasoning fails as `truncated` when max_tokens ran out, else as
 * `empty`; both errors carry the reasoning.
 */
export function completionFrom(draft: Draft, maxTokens: number): DecodedCompletion {
  if (draft.error) throw errorFromObject(draft.error);
  if (draft.finishReason === 'error') {
    throw new UpstreamError({ kind: 'provider', message: `the provider${draft.provider ? ` (${draft.provider})` : ''} stopped with finish_reason "error"` });
  }
  // All blank only if what was not kept is nothing: the kept part is thousands of characters.
  if (!/\S/.test(draft.content) && draft.chars === draft.content.length) throw noContentError(draft, maxTokens);
  return {
    content: draft.content,
    chars: draft.chars,
    reasoning: draft.reasoning,
    finishReason: draft.finishReason,
    truncated: draft.finishReason === 'length',
    usage: draft.usage,
    provider: draft.provider,
  };
}

function noContentError(draft: Draft, maxTokens: number): UpstreamError {
  const reasoning = draft.reasoning.trim() === '' ? undefined : draft.reasoning;
  const after = reasoning ? `, after ${characters(reasoning.length)} of reasoning` : '';
  if (draft.finishReason === 'length') {
    return new UpstreamError({ kind: 'truncated', message: `max_tokens (${maxTokens}) ran out before any answer${after}`, reasoning });
  }
  return new UpstreamError({ kind: 'empty', message: `the model returned no content${after} (finish_reason: ${draft.finishReason ?? 'none'})`, reasoning });
}

const characters = (count: number) => `${count} character${count === 1 ? '' : 's'}`;
