/**
 * A response body as text. undici hands over Buffers cut wherever the network cut them,
 * possibly inside a multibyte UTF-8 character, so each body gets one streaming decoder
 * that carries an unfinished character over to the next read.
 */
export async function* utf8Chunks(body: AsyncIterable<Uint8Array>, onRead: () => void = () => undefined): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of body) {
    onRead();
    const text = decoder.decode(bytes, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The whole body as one string. */
export async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: string[] = [];
  for await (const text of utf8Chunks(body)) parts.push(text);
  return parts.join('');
}
