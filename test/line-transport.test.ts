import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { LineSplitter } from '../src/text/line-splitter.js';
import { salvageRequestId } from '../src/mcp/line-salvage.js';
import { LineTransport } from '../src/mcp/line-transport.js';
import { serveOver } from './support/stdio-server.js';
import { waitFor } from './support/wait.js';

const projectRoot = path.resolve(import.meta.dirname, '..');
const MiB = 1024 * 1024;
const LIMIT = MiB;

/** `bytes` of JSON-RPC: a request whose params hold a long string, its id first (most clients) or last (the TypeScript SDK). */
function longRequest(id: number, bytes: number, idFirst: boolean): string {
  const params = `"params":{"name":"length","arguments":{"text":"${'x'.repeat(bytes)}"}}`;
  return idFirst
    ? `{"jsonrpc":"2.0","id":${id},"method":"tools/call",${params}}`
    : `{"method":"tools/call",${params},"jsonrpc":"2.0","id":${id}}`;
}

/** The server over in-memory pipes, driven by raw lines; what it writes back, a message at a time. */
async function rawServer() {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = await serveOver(input, output, { maxLineBytes: LIMIT });
  const replies: JSONRPCMessage[] = [];
  let buffered = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop()!;
    replies.push(...lines.map((line) => JSON.parse(line)));
  });
  const reply = async (id: number | string) => {
    await waitFor(() => replies.some((message) => 'id' in message && message.id === id));
    return replies.find((message) => 'id' in message && message.id === id)!;
  };
  return { ...served, input, replies, reply };
}

/** A client and the server, each over its own LineTransport, through in-memory pipes. */
async function connected() {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const served = await serveOver(toServer, toClient, { maxLineBytes: LIMIT });
  const client = new Client({ name: 'stdio-test-client', version: '1.0.0' });
  await client.connect(new LineTransport(toClient, toServer, { maxLineBytes: 64 * MiB }));
  return { ...served, client, toServer };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('LineSplitter', () => {
  it('splits lines across chunks, whatever the chunk boundaries', () => {
    const splitter = new LineSplitter(100);
    const lines = ['{"a":1}\n{"b"', ':2}\n', '\n{"c":3}', '\n'].flatMap((chunk) => splitter.push(Buffer.from(chunk)));
    expect(lines.map((line) => (line.kind === 'whole' ? line.bytes.toString() : line.kind))).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}']);
  });

  it('holds no more than the limit of a 50 MB line, keeps only its two ends, and serves the next line whole', () => {
    const splitter = new LineSplitter(LIMIT, 1024);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let held = 0;
    splitter.push(Buffer.from('{"id":1,'));
    for (let sent = 0; sent < 50 * MiB; sent += chunk.length) {
      expect(splitter.push(chunk)).toEqual([]);
      held = Math.max(held, splitter.held);
    }
    const [tooLong, next] = splitter.push(Buffer.from('"end"}\n{"next":true}\n'));
    expect(held).toBeLessThanOrEqual(LIMIT);
    expect(splitter.held).toBe(0);
    expect(tooLong).toMatchObject({ kind: 'too_long', length: 8 + 50 * MiB + 6 });
    if (tooLong?.kind !== 'too_long') throw new Error('not cut');
    expect([tooLong.head.length, tooLong.head.subarray(0, 8).toString(), tooLong.tail.subarray(-6).toString()]).toEqual([
      1024,
      '{"id":1,',
      '"end"}',
    ]);
    expect(next).toEqual({ kind: 'whole', bytes: Buffer.from('{"next":true}') });
  });
});

describe('salvageRequestId', () => {
  it("reads a request's id from the start of a line (most clients) or its end (the TypeScript SDK)", () => {
    const line = longRequest(7, 5000, true);
    expect(salvageRequestId(line.slice(0, 1024), line.slice(-1024))).toBe(7);
    const sdk = longRequest(8, 5000, false);
    expect(salvageRequestId(sdk.slice(0, 1024), sdk.slice(-1024))).toBe(8);
    expect(salvageRequestId('{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"x', 'xx"}}')).toBe('abc');
  });

  it('answers nothing it cannot be sure of: a response, a notification, an id inside the params, a cut id', () => {
    for (const [head, tail] of [
      ['{"result":{"content":"xx', 'xx"},"jsonrpc":"2.0","id":3}'],
      ['{"method":"notifications/cancelled","params":{"x', 'xx"}}'],
      ['{"method":"tools/call","params":{"x', 'xx","id":5}}'],
      ['{"jsonrpc":"2.0","id":12', ''],
      ['not json at all', 'nor here'],
    ]) {
      expect(salvageRequestId(head!, tail!)).toBeUndefined();
    }
  });
});

describe('LineTransport: a huge stdin line never ends the server', () => {
  it('answers a request on a line over the limit with an error for its id, reports the rest, and serves the next message', async () => {
    const { input, reply, replies, refused } = await rawServer();
    input.write(`${longRequest(1, 3 * MiB, true)}\n`);
    input.write(`${longRequest(2, 3 * MiB, false)}\n`);
    input.write(`{"result":{"text":"${'x'.repeat(3 * MiB)}"},"jsonrpc":"2.0","id":3}\n`);
    input.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"${'x'.repeat(3 * MiB)}"}}\n`);
    input.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    expect(await reply(4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    for (const id of [1, 2]) {
      expect(await reply(id)).toMatchObject({
        id,
        error: { code: -32600, message: expect.stringContaining(`over the limit of ${LIMIT}`) },
      });
    }
    expect(replies).toHaveLength(3);
    expect(refused).toHaveLength(4);
    expect(refused.join('\n')).toContain('no request id in sight');
  });

  it('answers a line that is not JSON, or not JSON-RPC, when its id can be read, and goes on', async () => {
    const { input, reply, refused } = await rawServer();
    input.write('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"oops\n');
    input.write('{"jsonrpc":"1.0","id":"twelve","method":"ping"}\n');
    input.write('\u0000\u0001 binary noise\r\n');
    input.write('{"jsonrpc":"2.0","id":13,"method":"ping"}\r\n');
    expect(await reply(11)).toMatchObject({ error: { code: -32700, message: 'Message refused: not JSON.' } });
    expect(await reply('twelve')).toMatchObject({ error: { code: -32600 } });
    expect(await reply(13)).toMatchObject({ result: {} });
    expect(refused).toHaveLength(3);
  });

  it("keeps a call in flight and later calls going through an SDK client's request over the limit", async () => {
    const { client } = await connected();
    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 300 } });
    await expect(client.callTool({ name: 'length', arguments: { text: 'x'.repeat(2 * MiB) } })).rejects.toMatchObject({ code: -32600 });
    expect(textOf(await inFlight)).toBe('waited 300 ms');
    expect(textOf(await client.callTool({ name: 'length', arguments: { text: 'x'.repeat(LIMIT / 2) } }))).toBe(String(LIMIT / 2));
    await client.close();
  });

  it('lets each send settle only once its bytes are written, in order, none dropped, to a slow reader', async () => {
    const written: string[] = [];
    const slow = new Writable({
      highWaterMark: 1024,
      write: (chunk: Buffer, _encoding, done) => {
        written.push(chunk.toString());
        setTimeout(done, 1);
      },
    });
    const transport = new LineTransport(new PassThrough(), slow);
    await transport.start();
    const message = (i: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { i, pad: 'x'.repeat(2000) },
    });
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        await transport.send(message(i));
        expect(written.length).toBeGreaterThan(i);
      }),
    );
    expect(written.map((line) => JSON.parse(line).params.i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('reports a broken stdout (EPIPE) through onerror and onclose, never by throwing', async () => {
    // A reader that closes its end of the pipe, and stays.
    const script = 'require("fs").closeSync(0); console.log("closed"); setInterval(() => {}, 1000)';
    const reader = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    onTestFinished(() => void reader.kill('SIGKILL'));
    await new Promise((resolve) => reader.stdout.once('data', resolve));
    const transport = new LineTransport(new PassThrough(), reader.stdin);
    const errors: string[] = [];
    let closed = 0;
    transport.onerror = (error) => errors.push((error as NodeJS.ErrnoException).code ?? error.message);
    transport.onclose = () => closed++;
    await transport.start();
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/message' })).rejects.toMatchObject({ code: 'EPIPE' });
    await waitFor(() => closed === 1);
    expect(errors).toEqual(['EPIPE']);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/message' })).rejects.toThrow('closed');
  });
});

describe('LineTransport end to end, over the pipes of a real process', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
  });

  it('finishes a call in flight and serves later calls, through a 50 MB line and an 11 MB line (which the SDK transport would die of)', async () => {
    const stderr: string[] = [];
    const args = ['--import', 'tsx', 'test/support/stdio-server.ts'];
    const transport = new StdioClientTransport({ command: process.execPath, args, cwd: projectRoot, stderr: 'pipe' });
    transport.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(transport);

    const inFlight = client.callTool({ name: 'wait', arguments: { ms: 1500 } });
    const huge = client.callTool({ name: 'length', arguments: { text: 'x'.repeat(50 * MiB) } });
    await expect(huge).rejects.toMatchObject({ code: -32600, message: expect.stringContaining('over the limit') });
    expect(textOf(await client.callTool({ name: 'length', arguments: { text: 'y'.repeat(11 * MiB) } }))).toBe(String(11 * MiB));
    expect(textOf(await inFlight)).toBe('waited 1500 ms');
    expect(textOf(await client.callTool({ name: 'wait', arguments: { ms: 1 } }))).toBe('waited 1 ms');
    expect(stderr.join('')).toMatch(/^a message refused: \d+ bytes, over the limit of 16777216; request \d+ answered with an error\n$/);
  }, 30_000);
});
