import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { readBody } from '../src/http/body.js';
import { within } from './support/wait.js';

/** One chunk of a chunked body, as it goes on the wire. */
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/**
 * A server on 127.0.0.1 that reads each body with a limit of 10 bytes and answers 200 with the
 * text or 413 with the refusal's reason; `watch` sees each request before its body is read.
 */
async function bodyServer(watch?: (req: IncomingMessage) => () => void) {
  const server = createServer(async (req, res) => {
    const replying = watch?.(req);
    const body = await readBody(req, 10);
    replying?.();
    res.writeHead(body.ok ? 200 : 413, { Connection: 'close' }).end(body.ok ? body.text : body.reason);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

it('reads a body sent past its limit to the end before the refusal, so a client still sending reads the refusal, not a reset', async () => {
  let overLimit!: () => void;
  const readPastLimit = new Promise<void>((resolve) => (overLimit = resolve));
  let seenAtReply = 0;
  const server = await bodyServer((req) => {
    let seen = 0;
    req.on('data', (data: Buffer) => {
      seen += data.length;
      if (seen > 10) overLimit();
    });
    return () => (seenAtReply = seen);
  });
  const socket = connect(server.port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    const failures: Error[] = [];
    socket.on('error', (error) => failures.push(error));
    let reply = '';
    socket.setEncoding('utf8').on('data', (text: string) => (reply += text));
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk('0123456789ab')}`);
    await within(5000, readPastLimit);
    // The client goes on sending after the server has seen too much.
    socket.write(chunk('x'.repeat(64 * 1024)));
    socket.end('0\r\n\r\n');
    await within(5000, once(socket, 'close'));
    expect(failures).toEqual([]);
    expect(seenAtReply).toBe(12 + 64 * 1024);
    expect(reply).toMatch(/^HTTP\/1\.1 413 [\s\S]*\r\ntoo_large\r\n/);
  } finally {
    socket.destroy();
    server.close();
  }
});

it('gives what it read when the body ends within its limit', async () => {
  const server = await bodyServer();
  try {
    const reply = await fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body: 'héllo' });
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe('héllo');
  } finally {
    server.close();
  }
});
