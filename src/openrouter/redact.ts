import { UpstreamError } from '../errors.js';
import type { ContentSink } from './decode.js';

const REDACTED = '[redacted]';

/** A character of a token: anything but a space or what closes a quote, a field or a bracket around it. */
const TOKEN_CHAR = '[^\\s"\'`,;)}\\]]';

/** What ends a token: a key is never split by one. */
const TOKEN_END = /[\s"'`,;)}\]]/;

/** `Bearer <token>`, as an upstream that echoes our Authorization header would write it (once redacted, left alone). */
const BEARER = new RegExp(`\\bBearer\\s+(?!\\[redacted\\])${TOKEN_CHAR}+`, 'gi');

/**
 * Shorter "keys" are not real keys, and scrubbing every occurrence of a few common
 * characters would mangle the text for nothing.
 */
const MIN_SECRET_LENGTH = 8;

/**
 * Enough of the key to know it by. Messages quote upstream text in excerpts (of a body, of
 * metadata.raw), and an excerpt may end inside the key: what starts with this prefix is
 * the key, whole or in part.
 */
const KEY_PREFIX_LENGTH = 12;

/** Removes what must never reach a result, a file or a log from the text upstreams send us. */
export class Redactor {
  /** The key, or the start of it followed by the rest of a token. */
  private readonly secretPattern: RegExp | undefined;

  /** What every match of the pattern starts with: text without it needs no search. */
  private readonly prefix: string;

  /** The key holds a character that ends tokens (keys are printable ASCII, so it may). */
  private readonly secretBreaks: boolean;

  constructor(private readonly secret: string) {
    this.secretBreaks = TOKEN_END.test(secret);
    this.prefix = secret.slice(0, KEY_PREFIX_LENGTH);
    const escaped = this.prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.secretPattern = secret.length < MIN_SECRET_LENGTH ? undefined : new RegExp(`${escaped}${TOKEN_CHAR}*`, 'g');
  }

  /** The key's value, whole or cut short, wherever it appears: for answers and reasoning, which we keep verbatim otherwise. */
  secretIn(text: string): string {
    // Both the key and the pattern start with the prefix: one search tells whether there is anything to replace.
    if (!this.secretPattern || !text.includes(this.prefix)) return text;
    return text.replaceAll(this.secret, REDACTED).replace(this.secretPattern, REDACTED);
  }

  /**
   * A sink that gets text redacted as `secretIn` would, though it comes in pieces and a key may
   * be split between two: a key (or what may be the start of one) that may go on in the next
   * piece is held back until its token ends, or the text does (`end`). Everything else goes on
   * at once, and a wait the target asks for is handed back to the writer.
   */
  stream(target: ContentSink): ContentSink & { end(): void } {
    let held = '';
    const release = (upTo: number) => {
      if (upTo === 0) return undefined;
      const out = upTo === held.length ? held : held.slice(0, upTo);
      held = upTo === held.length ? '' : held.slice(upTo);
      return target.write(this.secretIn(out));
    };
    return {
      keepChars: target.keepChars,
      write: (piece) => {
        // Only the new piece need be searched for a token's end: what was held has none.
        const inPiece = lastTokenEnd(piece);
        const lastToken = inPiece === -1 ? 0 : held.length + inPiece + 1;
        held += piece;
        return release(this.safeEnd(held, lastToken));
      },
      end: () => void release(held.length),
    };
  }

  /**
   * How much of `text` no later piece can change: all of it but a key that runs to its end, or
   * the last characters, when they may be the start of one. `lastToken` is where its last token starts.
   */
  private safeEnd(text: string, lastToken: number): number {
    if (!this.secretPattern) return text.length;
    const key = text.indexOf(this.prefix, lastToken);
    if (!this.secretBreaks) return key !== -1 ? key : text.length - this.keyStartAtEnd(text);
    const end = key !== -1 ? key : Math.max(lastToken, text.length - (KEY_PREFIX_LENGTH - 1));
    // A key that holds a token-ending character may start before the last token: keep back
    // its length, and any key that would run over the cut.
    const cut = Math.max(0, Math.min(end, text.length - (this.secret.length - 1)));
    const straddling = text.indexOf(this.prefix, Math.max(0, cut - this.secret.length + 1));
    return straddling !== -1 && straddling < cut ? straddling : cut;
  }

  /** How many of the last characters of `text` may be the key's start: the longest end of it that begins the prefix. */
  private keyStartAtEnd(text: string): number {
    const last = text.charCodeAt(text.length - 1);
    for (let length = Math.min(this.prefix.length - 1, text.length); length > 0; length--) {
      if (this.prefix.charCodeAt(length - 1) === last && text.endsWith(this.prefix.slice(0, length))) return length;
    }
    return 0;
  }

  /** The key's value and any `Bearer …` token: for error messages and metadata, where no token belongs. */
  upstreamText(text: string): string {
    return this.secretIn(text.replace(BEARER, `Bearer ${REDACTED}`));
  }

  /** The error with every upstream text in it redacted: message, metadata, reasoning. */
  error(error: UpstreamError): UpstreamError {
    return new UpstreamError({
      kind: error.kind,
      message: this.upstreamText(error.message),
      status: error.status,
      code: error.code === undefined ? undefined : this.upstreamText(error.code),
      retryAfterMs: error.retryAfterMs,
      metadata: error.metadata === undefined ? undefined : (this.deep(error.metadata) as Record<string, unknown>),
      retryableHint: error.retryable,
      reasoning: error.reasoning === undefined ? undefined : this.secretIn(error.reasoning),
      cause: error.cause,
    });
  }

  /** Every string in a JSON-like value, redacted; keys included, since an echoed header may be a key. */
  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.upstreamText(value);
    if (Array.isArray(value)) return value.map((item) => this.deep(item));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.upstreamText(key), this.deep(item)]));
  }
}

/** TOKEN_END's ASCII characters, by code: looked up, not matched, since every streamed piece is scanned. */
const ASCII_TOKEN_END = new Uint8Array(128);
for (let code = 0; code < 128; code++) if (TOKEN_END.test(String.fromCharCode(code))) ASCII_TOKEN_END[code] = 1;

/** Where the last token of `text` ends: the index of its last token-ending character, or -1. */
function lastTokenEnd(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (code < 128 ? ASCII_TOKEN_END[code] === 1 : TOKEN_END.test(text[i]!)) return i;
  }
  return -1;
}
