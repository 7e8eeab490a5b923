import { UpstreamError } from '../errors.js';
import type { ContentSink } from './decode.js';

const REDACTED = '[redacted]';

/** A character of a token: anything but a space or what closes a quote, a field or a bracket around it. */
const TOKEN_CHAR = "[^\\s\"'`,;)}\\]]";

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

  /** The key holds a character that ends tokens (keys are printable ASCII, so it may). */
  private readonly secretBreaks: boolean;

  constructor(private readonly secret: string) {
    this.secretBreaks = TOKEN_END.test(secret);
    const prefix = secret.slice(0, KEY_PREFIX_LENGTH).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.secretPattern = secret.length < MIN_SECRET_LENGTH ? undefined : new RegExp(`${prefix}${TOKEN_CHAR}*`, 'g');
  }

  /** The key's value, whole or cut short, wherever it appears: for answers and reasoning, which we keep verbatim otherwise. */
  secretIn(text: string): string {
    if (!this.secretPattern) return text;
    return text.replaceAll(this.secret, REDACTED).replace(this.secretPattern, REDACTED);
  }

  /**
   * A sink that gets text redacted as `secretIn` would, though it comes in pieces and a key may
   * be split between two: a key (or the start of one) that may go on in the next piece is held
   * back until its token ends, or the text does (`end`). Everything else goes on at once.
   */
  stream(target: ContentSink): ContentSink & { end(): void } {
    let held = '';
    const release = (upTo: number) => {
      if (upTo > 0) target.write(this.secretIn(held.slice(0, upTo)));
      held = held.slice(upTo);
    };
    return {
      keepChars: target.keepChars,
      write: (piece) => {
        // Only the new piece need be searched for a token's end: what was held has none.
        const inPiece = lastTokenEnd(piece);
        const lastToken = inPiece === -1 ? 0 : held.length + inPiece + 1;
        held += piece;
        release(this.safeEnd(held, lastToken));
      },
      end: () => release(held.length),
    };
  }

  /**
   * How much of `text` no later piece can change: all of it but a key that runs to its end, or
   * the last characters, which may be the start of one. `lastToken` is where its last token starts.
   */
  private safeEnd(text: string, lastToken: number): number {
    if (!this.secretPattern) return text.length;
    const prefix = this.secret.slice(0, KEY_PREFIX_LENGTH);
    const key = text.indexOf(prefix, lastToken);
    const end = key !== -1 ? key : Math.max(lastToken, text.length - (KEY_PREFIX_LENGTH - 1));
    if (!this.secretBreaks) return end;
    // A key that holds a token-ending character may start before the last token: keep back
    // its length, and any key that would run over the cut.
    const cut = Math.max(0, Math.min(end, text.length - (this.secret.length - 1)));
    const straddling = text.indexOf(prefix, Math.max(0, cut - this.secret.length + 1));
    return straddling !== -1 && straddling < cut ? straddling : cut;
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

/** Where the last token of `text` ends: the index of its last token-ending character, or -1. */
function lastTokenEnd(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (TOKEN_END.test(text[i]!)) return i;
  return -1;
}
