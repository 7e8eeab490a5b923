import { randomBytes } from 'node:crypto';

/** Strings longer than this are escaped a slice at a time. */
const SLICE_CHARS = 16 * 1024;

/** What stands in the skeleton for a long string: no value a caller sends is this (a per-process random name). */
const LONG = `\u0000${randomBytes(12).toString('hex')}\u0000`;
const QUOTED_LONG = JSON.stringify(LONG);

/**
 * `value` as JSON in UTF-8, the same bytes as `JSON.stringify`, without ever making the whole
 * text one string: a prompt that quotes long answers runs to hundreds of thousands of
 * characters, and V8 keeps every string past 128 KiB until its next full collection, long after
 * the request is sent (bench/RESULTS.md). Long strings are escaped a slice at a time.
 */
export function jsonBytes(value: unknown): Buffer {
  const long: string[] = [];
  const skeleton = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'string' || v.length <= SLICE_CHARS) return v;
    long.push(v);
    return LONG;
  });
  const [first, ...rest] = skeleton.split(QUOTED_LONG);
  // Some value was the marker itself after all: no slicing, then.
  if (rest.length !== long.length) return Buffer.from(JSON.stringify(value));
  const pieces: Buffer[] = [Buffer.from(first!)];
  rest.forEach((after, i) => pieces.push(...quotedSlices(long[i]!), Buffer.from(after)));
  return Buffer.concat(pieces);
}

/** `text` as a JSON string, in slices that never part a surrogate pair (each is escaped as it stands). */
function quotedSlices(text: string): Buffer[] {
  const slices: Buffer[] = [Buffer.from('"')];
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    slices.push(Buffer.from(JSON.stringify(text.slice(start, end)).slice(1, -1)));
    start = end;
  }
  slices.push(Buffer.from('"'));
  return slices;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
