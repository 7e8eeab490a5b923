import { KeptText } from './kept-text.js';
import { textPartSchema, thinkingPartSchema, type CompletionBody, type ErrorObject, type MessagePart } from './schemas.js';
import { MAX_LINE_CHARS } from './sse.js';
import { convertUsage, type TokenUsage } from './usage.js';

/**
 * The most of one answer (or of its reasoning) we take, in characters: the SSE line cap, 16 Mi.
 * A model that goes on past it is stopped there (the request is aborted, which stops the
 * billing) and its answer is kept as it stands, marked truncated. A million tokens of answer
 * is about 4 Mi characters: only a runaway stream reaches this.
 */
export const MAX_ANSWER_CHARS = MAX_LINE_CHARS;

/**
 * Where a long answer's text goes as it arrives, so that it never has to be held whole: the
 * completion keeps only the first `keepChars` characters, and `write` gets every piece. A
 * promise from `write` means the sink is behind (its disk is slower than the network): the
 * reader waits for it before it reads more from the network.
 */
export interface ContentSink {
  keepChars: number;
  write(piece: string): void | Promise<void>;
}

/** The answer as it builds up, from one JSON body or many stream chunks. */
export interface Draft {
  /** The content: its first `sink.keepChars` characters with a sink, else all of it (up to the cap). */
  content: KeptText;
  /** The whole content's length. */
  chars: number;
  sink: ContentSink | undefined;
  reasoning: KeptText;
  finishReason: string | undefined;
  usage: TokenUsage | undefined;
  error: ErrorObject | undefined;
  provider: string | undefined;
  /** The most characters of answer, or of reasoning, we take. */
  capChars: number;
  /** The sink's last request to wait, not yet waited for. */
  backpressure: Promise<void> | undefined;
}

export function emptyDraft(sink: ContentSink | undefined, capChars: number): Draft {
  return {
    content: new KeptText(sink ? Math.min(sink.keepChars, capChars) : capChars),
    chars: 0,
    sink,
    reasoning: new KeptText(capChars),
    finishReason: undefined,
    usage: undefined,
    error: undefined,
    provider: undefined,
    capChars,
    backpressure: undefined,
  };
}

/**
 * Folds one body or chunk into the draft. Only the first choice is read: we ask for one.
 * `content`, when given, is that choice's content in place of the body's (a chunk read through
 * its shape, src/openrouter/chunk-shape.ts).
 */
export function absorb(draft: Draft, body: CompletionBody, content?: string): void {
  const choice = body.choices?.[0];
  const part = choice?.delta ?? choice?.message;
  // OpenRouter says `reasoning`; DeepSeek, Qwen and others `reasoning_content`; Mistral sends thinking parts.
  const reasoning = part?.reasoning ?? part?.reasoning_content;
  if (reasoning) draft.reasoning.add(reasoning);
  const text = content ?? part?.content;
  if (typeof text === 'string') addContent(draft, text);
  else if (text) addParts(draft, text);
  draft.finishReason = choice?.finish_reason ?? draft.finishReason;
  draft.error = body.error ?? choice?.error ?? draft.error;
  if (body.usage !== undefined) draft.usage = convertUsage(body.usage) ?? draft.usage;
  draft.provider = body.provider ?? draft.provider;
}

/** The answer or its reasoning reached the cap: we read no more. */
export function isCapped(draft: Draft): boolean {
  return draft.chars >= draft.capChars || draft.reasoning.length >= draft.capChars;
}

/** Keeps what the draft may hold of `text` and gives all of it to the sink, noting any wait it asks for. */
function addContent(draft: Draft, text: string): void {
  if (text === '') return;
  draft.chars += text.length;
  draft.content.add(text);
  const wait = draft.sink?.write(text);
  if (wait) draft.backpressure = wait;
}

/**
 * `content` given as parts (Mistral): text parts are the answer, thinking parts are
 * reasoning, anything else (images, references) is not text we keep.
 */
function addParts(draft: Draft, parts: NonNullable<MessagePart['content']>): void {
  let text = '';
  for (const part of parts) {
    text += textOf(part);
    const parsed = thinkingPartSchema.safeParse(part);
    if (parsed.success)
      draft.reasoning.add(typeof parsed.data.thinking === 'string' ? parsed.data.thinking : parsed.data.thinking.map(textOf).join(''));
  }
  addContent(draft, text);
}

/** The text of a text part; nothing for any other part. */
function textOf(part: unknown): string {
  const parsed = textPartSchema.safeParse(part);
  return parsed.success ? parsed.data.text : '';
}
