import { SseParser } from '../../src/openrouter/sse.js';

/** The data of every event in `reads`, each a network read (text is sent as UTF-8), as the parser hands it over. */
export function sseDataOf(reads: Iterable<Uint8Array | string>): string[] {
  const out: string[] = [];
  const parser = new SseParser((data) => {
    out.push(data);
    return true;
  });
  for (const read of reads) parser.push(typeof read === 'string' ? Buffer.from(read, 'utf8') : read);
  parser.end();
  return out;
}
