import type { IncomingMessage } from 'node:http';

/** How long a client may take to send a request's body. */
const BODY_MS = 30_000;

export type Body = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'slow' | 'broken' };

/**
 * A request's body as UTF-8 text, at most `maxBytes` of it: reading stops as soon as more has
 * come, and after BODY_MS, so a client that sends too much, or too slowly, holds nothing long.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (body: Body) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      // The rest of a refused body is not waited for: the reply closes the connection.
      if (!body.ok) req.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return done({ ok: false, reason: 'too_large' });
      chunks.push(chunk);
    };
    const onEnd = () => done({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onError = () => done({ ok: false, reason: 'broken' });
    const timer = setTimeout(() => done({ ok: false, reason: 'slow' }), BODY_MS);
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
