import type { Socket } from 'node:net';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP over a local socket, framed as MCP's stdio transport frames it: one JSON-RPC message per
 * line. The run host and its faces speak it over the host's Unix socket (a named pipe on
 * Windows). A line is gathered in the pieces it arrives in and joined once, so a long message
 * costs one copy, not one per read.
 */
export class SocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pieces: Buffer[] = [];
  private closed = false;

  constructor(private readonly socket: Socket) {}

  async start(): Promise<void> {
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.onerror?.(error));
    this.socket.on('close', () => this.ended());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.socket.destroyed) throw new Error('the socket is closed');
    if (!this.socket.write(`${JSON.stringify(message)}\n`)) await waitForDrain(this.socket);
  }

  async close(): Promise<void> {
    this.socket.end();
    this.socket.destroy();
    this.ended();
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.pieces.push(chunk.subarray(start, newline));
      const line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
      this.pieces = [];
      start = newline + 1;
      this.deliver(line);
    }
    if (start < chunk.length) this.pieces.push(chunk.subarray(start));
  }

  private deliver(line: Buffer): void {
    if (line.length === 0) return;
    try {
      this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line.toString('utf8'))));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** Resolves when the socket can take more, or when it closes: a write never waits for ever. */
function waitForDrain(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}
