import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors.js';
import { readText, utf8Chunks } from './body.js';
import { badBody, errorFromObject } from './error-map.js';
import { completionBodySchema, textPartSchema, thinkingPartSchema, type CompletionBody, type ErrorObject, type MessagePart } from './schemas.js';
import { sseData } from './sse.js';
import { convertUsage, type TokenUsage } from './usage.js';

/** The answer as it builds up, from one JSON body or many stream chunks. */
export interface Draft {
  content: string;
  reasoning: string;
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  error: ErrorObject | undefined;
  provider: string | undefined;
}

/** A completion as the client returns it, before the client adds how many attempts it took. */
export interface DecodedCompletion {
  content: string;
  /** The model's reasoning, kept for the record, never fed to synthesis. */
  reasoning: string;
  finishReason: string | undefined;
  /** The answer stopped at max_tokens. */
  truncated: boolean;
  usage: TokenUsage | undefined;
  provider: string | undefined;
}

function emptyDraft(): Draft {
  return { content: '', reasoning: '', finishReason: undefined, usage: undefined, error: undefined, provider: undefined };
}

/** A streamed completion: the SSE events of the body, decoded as one UTF-8 text. */
export async function readStream(body: Dispatcher.ResponseData['body'], heardFrom: () => void, state: { contentStarted: boolean }): Promise<Draft> {
  const draft = emptyDraft();
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
export async function readWholeBody(body: Dispatcher.ResponseData['body']): Promise<Draft> {
  const draft = emptyDraft();
  absorb(draft, parseBody(await readText(body)));
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
    draft.content += text;
    // OpenRouter says `reasoning`; DeepSeek, Qwen and others `reasoning_content`; Mistral sends thinking parts.
    draft.reasoning += (part.reasoning ?? part.reasoning_content ?? '') + thinking;
  }
  draft.finishReason = choice?.finish_reason ?? draft.finishReason;
  draft.error = body.error ?? choice?.error ?? draft.error;
  draft.usage = convertUsage(body.usage) ?? draft.usage;
  draft.provider = body.provider ?? draft.provider;
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
  if (draft.content.trim() === '') throw noContentError(draft, maxTokens);
  return {
    content: draft.content,
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
