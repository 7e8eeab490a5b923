import { randomBytes } from 'node:crypto';
import { TextParts } from './text-parts.js';
import { isHighSurrogate } from '../text/surrogate-pairs.js';

/** Strings longer than this are escaped a slice at a time. */
const SLICE_CHARS = 16 * 1024;
/** A body no longer than this is made whole, and sent in one write. */
const WHOLE_BYTES = 64 * 1024;

/** What stands in the skeleton for a long string: no value a caller sends is this (a per-process random name). */
const LONG = `\u0000${randomBytes(12).toString('hex')}\u0000`;
const QUOTED_LONG = JSON.stringify(LONG);

/** A JSON body in UTF-8: its length in bytes, and its bytes, whole, or made a slice at a time as they are read. */
export interface JsonBody {
  length: number;
  bytes: Buffer | Iterable<Buffer>;
}

/**
 * `value` as JSON in UTF-8, the same bytes as `JSON.stringify`, without ever making the whole
 * text one string, nor holding all of its bytes at once: a prompt that quotes long answers runs
 * to hundreds of thousands of characters, and V8 keeps every string past 128 KiB until its next
 * full collection, long after the request is sent. Long strings, and
 * TextParts as the one string they make, are escaped a slice at a time: once to count their
 * bytes, and again as the body is sent, unless it is small enough to be made whole (a surrogate
 * pair split between two parts is escaped as its two halves, which JSON reads back as the pair).
 */
export function jsonBody(value: unknown): JsonBody {
  const long: (readonly string[])[] = [];
  const skeleton = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof TextParts) long.push(v.parts);
    else if (typeof v === 'string' && v.length > SLICE_CHARS) long.push([v]);
    else return v;
    return LONG;
  });
  const between = skeleton.split(QUOTED_LONG).map((text) => Buffer.from(text));
  // Some value was the marker itself after all: no slicing, then.
  if (between.length !== long.length + 1)
    return whole(JSON.stringify(value, (_key, v: unknown) => (v instanceof TextParts ? v.toString() : v)));
  if (long.length === 0) return whole(skeleton);
  let length = between.reduce((sum, bytes) => sum + bytes.length, 0);
  for (const parts of long) for (const slice of quotedSlices(parts)) length += Buffer.byteLength(slice);
  if (length <= WHOLE_BYTES) return { length, bytes: Buffer.concat([...sliced(between, long)], length) };
  return { length, bytes: { [Symbol.iterator]: () => sliced(between, long) } };
}

function whole(text: string): JsonBody {
  const bytes = Buffer.from(text);
  return { length: bytes.length, bytes };
}

/** The body's bytes: the skeleton's pieces, each long text's slices in its place. */
function* sliced(between: Buffer[], long: (readonly string[])[]): Generator<Buffer> {
  for (const [i, parts] of long.entries()) {
    yield between[i]!;
    for (const slice of quotedSlices(parts)) yield Buffer.from(slice);
  }
  yield between[long.length]!;
}

/** The parts as one JSON string, quotes included, in slices that never part a surrogate pair within a part (each is escaped as it stands). */
function* quotedSlices(parts: readonly string[]): Generator<string> {
  yield '"';
  for (const text of parts) {
    for (let start = 0; start < text.length;) {
      let end = Math.min(text.length, start + SLICE_CHARS);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
      yield JSON.stringify(text.slice(start, end)).slice(1, -1);
      start = end;
    }
  }
  yield '"';
}
