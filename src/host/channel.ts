import type { Socket } from 'node:net';
import { withinMs } from '../clock.js';
import { err, ok, type Result } from '../result.js';
import type { LookupError } from '../run/service.js';
import { HOST_NAME, type Hello, type Reply } from './protocol.js';
import { readMessages, send } from './wire.js';

/** How long a client waits for a host to say who it is once connected. */
const HELLO_MS = 5000;

export interface AskOptions {
  /** Takes the ask back: the host stops what it does for it, and the ask rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The ask is taken back, and rejects, when no reply has come within this long. */
  timeoutMs: number;
}

/**
 * A client's end of its connection to the run host: asks go out numbered, and each settles with
 * its reply, or rejects when it is taken back, times out, or the connection is lost (`onclose`
 * is told first, so that the owner knows to reach a host again).
 */
export class HostChannel {
  onclose?: () => void;
  private readonly pending = new Map<number, (reply: Reply | Error) => void>();
  private lastId = 0;
  private closed = false;
  /** Takes the host's first message, or the error that ended the connection before it. */
  private greet: ((hello: Partial<Hello> | Error) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    readMessages(
      socket,
      (message) => this.received(message),
      (id, why) => id !== undefined && this.pending.get(id)?.(new Error(`the run host's reply could not be read: ${why}`)),
    );
    socket.on('error', () => undefined);
    socket.once('close', () => this.lost());
  }

  /** The channel over `socket` once the host on it has said it is the run host of `version`; the socket is ended otherwise. */
  static async open(socket: Socket, version: string): Promise<HostChannel> {
    const channel = new HostChannel(socket);
    const hello = new Promise<Partial<Hello> | Error>((resolve) => (channel.greet = resolve));
    try {
      const silent = () => new Error(`the run host said nothing within ${HELLO_MS / 1000} s`);
      const said = await withinMs(HELLO_MS, () => hello, silent);
      if (said instanceof Error) throw said;
      if (said.host !== HOST_NAME || said.version !== version)
        throw new Error(`served by ${String(said.host)} ${String(said.version)}, not the run host ${version}`);
      return channel;
    } catch (error) {
      await channel.close();
      throw error;
    }
  }

  /** Asks the host for operation `op`: its value, or the lookup error it answered with; rejects when it failed. */
  ask(op: string, args: object, { signal, timeoutMs }: AskOptions): Promise<Result<unknown, LookupError>> {
    if (this.closed) return Promise.reject(new Error('the connection to the run host is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = ++this.lastId;
    return new Promise((resolve, reject) => {
      const done = () => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
      };
      const withdraw = (reason: unknown) => {
        done();
        send(this.socket, { withdraw: id });
        reject(reason);
      };
      const aborted = () => withdraw(signal?.reason);
      const timer = setTimeout(() => withdraw(new Error(`the run host did not answer within ${Math.ceil(timeoutMs / 1000)} s`)), timeoutMs);
      signal?.addEventListener('abort', aborted, { once: true });
      this.pending.set(id, (reply) => {
        done();
        if (reply instanceof Error) reject(reply);
        else if ('failed' in reply) reject(new Error(reply.failed));
        else resolve('lookup' in reply ? err(reply.lookup) : ok(reply.value));
      });
      send(this.socket, { id, op, args });
    });
  }

  async close(): Promise<void> {
    this.socket.destroy();
    this.lost();
  }

  private received(message: Record<string, unknown>): void {
    if (this.greet) {
      this.greet(message);
      this.greet = undefined;
    } else if (typeof message.id === 'number') this.pending.get(message.id)?.(message as Reply);
  }

  /** The connection is gone: the owner is told, then every ask still waiting fails. */
  private lost(): void {
    if (this.closed) return;
    this.closed = true;
    this.greet?.(new Error('the run host closed the connection before saying who it is'));
    this.onclose?.();
    const error = new Error('the connection to the run host was lost');
    for (const settle of [...this.pending.values()]) settle(error);
  }
}
