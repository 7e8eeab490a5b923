import { UpstreamError } from '../errors.js';

/**
 * The most of a body we read whole (a JSON answer, an error): 64 MiB, room for an answer at the
 * stored-answer cap (16 Mi characters) in any script. A larger body is refused, not held.
 */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The whole body as one string. undici hands over Buffers cut wherever the network cut them,
 * possibly inside a multibyte UTF-8 character, so the bytes are joined first and decoded once.
 */
export async function readText(body: AsyncIterable<Uint8Array>, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const pieces: Uint8Array[] = [];
  let length = 0;
  for await (const bytes of body) {
    length += bytes.byteLength;
    // Leaving the loop destroys the body: nothing more is read.
    if (length > maxBytes) throw new UpstreamError({ kind: 'bad_body', message: `the body was longer than ${maxBytes / 1024 / 1024} MiB` });
    pieces.push(bytes);
  }
  return Buffer.concat(pieces, length).toString('utf8');
}
