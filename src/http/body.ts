import type { IncomingMessage } from 'node:http';

/** How long a client may take to send a request's body. */
const BODY_MS = 30_000;

export type Body = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'slow' | 'broken' };

/**
 * A request's body as UTF-8 text, at most `maxBytes` of it. Past `maxBytes` the rest is read
 * and dropped until the body ends: a client still sending when refused would otherwise meet a
 * reset connection instead of the refusal. BODY_MS bounds the whole wait.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const tooLarge = () => received > maxBytes;
    const done = (body: Body) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      // A body cut short is not waited for any longer: the reply closes the connection.
      if (!body.ok) req.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      // Once refused, what was kept is let go too.
      if (tooLarge()) chunks.length = 0;
      else chunks.push(chunk);
    };
    const onEnd = () => done(tooLarge() ? { ok: false, reason: 'too_large' } : { ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onError = () => done({ ok: false, reason: 'broken' });
    const timer = setTimeout(() => done({ ok: false, reason: tooLarge() ? 'too_large' : 'slow' }), BODY_MS);
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
