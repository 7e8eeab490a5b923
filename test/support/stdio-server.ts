/**
 * A real McpServer over LineTransport, with two tools to test the transport: `wait`
 * (answers after `ms`, a call in flight) and `length` (the length of its `text`, which may be
 * megabytes long). Imported by tests in-process, or run as a child process over real pipes:
 *
 *   node --import tsx test/support/stdio-server.ts
 *
 * Run as a process, it reports on stderr each message the transport refused.
 */
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LineTransport, type LineTransportOptions } from '../../src/mcp/line-transport.js';

export async function serveOver(input: Readable, output: Writable, options: LineTransportOptions = {}) {
  const server = new McpServer({ name: 'stdio-test-server', version: '1.0.0' });
  server.registerTool('wait', { inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await sleep(ms);
    return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
  });
  server.registerTool('length', { inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: String(text.length) }],
  }));
  const transport = new LineTransport(input, output, options);
  const refused: string[] = [];
  transport.onerror = (error) => refused.push(error.message);
  await server.connect(transport);
  return { server, transport, refused };
}

if (process.argv[1] === import.meta.filename) {
  const { transport } = await serveOver(process.stdin, process.stdout);
  const reported = transport.onerror!;
  transport.onerror = (error) => {
    reported(error);
    process.stderr.write(`${error.message}\n`);
  };
}
