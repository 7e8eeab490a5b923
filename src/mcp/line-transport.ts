import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter, MAX_LINE_BYTES, type Line } from '../text/line-splitter.js';
import { requestIdOf, salvageRequestId } from './line-salvage.js';

/** How much of each end of a line is searched for a request's id when it cannot be served. */
const EXCERPT_CHARS = 1024;
/** How much of a line that cannot be served is quoted in the report: enough to recognise it. */
const QUOTE_CHARS = 80;

export interface LineTransportOptions {
  maxLineBytes?: number;
}

/**
 * MCP as newline-delimited JSON-RPC over a pair of streams: the server's stdio. As the SDK's
 * StdioServerTransport, without its fatal flaw: that one closes itself, and the server ends, on
 * a line over 10 MiB, losing every call in flight. This one reads bytes, lets a line over
 * `maxLineBytes` go as it arrives, and answers it with a JSON-RPC error when the request's id
 * can be read from its start or its end (otherwise the line is only reported, through
 * `onerror`); a line that is not JSON, or not JSON-RPC, is treated the same way. Every other
 * message is served as usual.
 *
 * A `send` settles once its bytes are handed to the system (so a sender waits on a slow
 * reader, and nothing is dropped), or rejects when stdout is broken; a broken stdout (EPIPE)
 * is reported through `onerror`, then `onclose`, never thrown. The end of stdin is left to
 * the process's shutdown, as with the SDK's transport: calls in flight may still answer.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly lines: LineSplitter;
  private started = false;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    options: LineTransportOptions = {},
  ) {
    this.lines = new LineSplitter(options.maxLineBytes ?? MAX_LINE_BYTES, EXCERPT_CHARS);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('the line transport has already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the transport is closed'));
    return new Promise((resolve, reject) => {
      this.output.write(serializeMessage(message), (error) => {
        if (!error) return resolve();
        // A stdout already destroyed fails the write without an 'error' event.
        this.onOutputError(error);
        reject(error);
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    // Another reader of stdin may remain; only an unread stdin is paused.
    if (this.input.listenerCount('data') === 0) this.input.pause();
    // The listener on stdout stays: a late EPIPE must still not be thrown.
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    for (const line of this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
      if (this.closed) return;
      this.serve(line);
    }
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly onOutputError = (error: Error): void => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  private serve(line: Line): void {
    if (line.kind === 'too_long') {
      const id = salvageRequestId(line.head.toString('utf8'), line.tail.toString('utf8'));
      this.refuse(id, ErrorCode.InvalidRequest, `${line.length} bytes, over the limit of ${this.lines.maxLineBytes}`);
      return;
    }
    const text = line.bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const id = salvageRequestId(text.slice(0, EXCERPT_CHARS), text.slice(-EXCERPT_CHARS));
      this.refuse(id, ErrorCode.ParseError, 'not JSON', text);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse(requestIdOf(value), ErrorCode.InvalidRequest, 'not a valid JSON-RPC message', text);
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** Reports a message that cannot be served, and answers it with an error when it is a request whose id is known. */
  private refuse(id: RequestId | undefined, code: ErrorCode, why: string, text?: string): void {
    const quoted = text === undefined ? '' : ` (${JSON.stringify(text.slice(0, QUOTE_CHARS))}${text.length > QUOTE_CHARS ? '...' : ''})`;
    const answered = id === undefined ? 'no request id in sight to answer' : `request ${JSON.stringify(id)} answered with an error`;
    this.onerror?.(new Error(`a message refused: ${why}${quoted}; ${answered}`));
    if (id === undefined) return;
    void this.send({ jsonrpc: '2.0', id, error: { code, message: `Message refused: ${why}.` } }).catch(() => undefined);
  }
}
