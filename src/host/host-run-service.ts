import type { Socket } from 'node:net';
import { withinMs } from '../clock.js';
import { ok, type Result } from '../result.js';
import type { RunRequest } from '../run/request.js';
import type { CancelOutcome, Listing, LookupError, RunView, StartOptions, StartOutcome, Watched, WatchOptions } from '../run/service.js';
import { HOST_NAME, viewFromWire, type Hello, type HostInfo, type Reply, type WireView } from './protocol.js';
import { readMessages, send } from './wire.js';

/** How long a client waits for a host to say who it is once connected. */
const HELLO_MS = 5000;
/** Beyond a wait's own length, how long an ask may take before the client gives up on it. */
const ASK_SLACK_MS = 30_000;

/**
 * The run host's runs over one connection: each call is one numbered ask, settled by its reply.
 * Once the connection is lost (the host exited or was killed) it is `lost`, every ask still
 * waiting rejects, and its owner (client.ts) reaches a host again.
 */
export class HostRunService {
  lost = false;
  private readonly pending = new Map<number, (reply: Reply | Error) => void>();
  private lastId = 0;
  /** Takes the host's first message, or the error that ended the connection before it. */
  private greet: ((hello: Partial<Hello> | Error) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    readMessages(
      socket,
      (message) => this.received(message),
      (id, why) => id !== undefined && this.pending.get(id)?.(new Error(`the run host's reply could not be read: ${why}`)),
    );
    socket.on('error', () => undefined);
    socket.once('close', () => this.closed());
  }

  /** The runs of the host on `socket` once it has said it is the run host of `version`; the socket is ended otherwise. */
  static async open(socket: Socket, version: string): Promise<HostRunService> {
    const runs = new HostRunService(socket);
    const hello = new Promise<Partial<Hello> | Error>((resolve) => (runs.greet = resolve));
    try {
      const silent = () => new Error(`the run host said nothing within ${HELLO_MS / 1000} s`);
      const said = await withinMs(HELLO_MS, () => hello, silent);
      if (said instanceof Error) throw said;
      if (said.host !== HOST_NAME || said.version !== version)
        throw new Error(`served by ${String(said.host)} ${String(said.version)}, not the run host ${version}`);
      return runs;
    } catch (error) {
      await runs.close();
      throw error;
    }
  }

  start(request: RunRequest, options: StartOptions = {}): Promise<StartOutcome> {
    return this.ask('start', { request, ...options }) as Promise<StartOutcome>;
  }

  async watch(id: string, { signal, ...options }: WatchOptions): Promise<Result<Watched, LookupError>> {
    const args = { id, ...options, waitMs: Math.round(options.waitMs) };
    const found = await this.ask('watch', args, { signal, timeoutMs: options.waitMs + ASK_SLACK_MS });
    const watched = found as Result<Omit<Watched, 'view'> & { view?: WireView }, LookupError>;
    if (!watched.ok) return watched;
    const { view, ...rest } = watched.value;
    return ok(view ? { ...rest, view: viewFromWire(view) } : rest);
  }

  async view(id: string, maxChars: number): Promise<Result<RunView, LookupError>> {
    const found = (await this.ask('view', { id, maxChars })) as Result<WireView, LookupError>;
    return found.ok ? ok(viewFromWire(found.value)) : found;
  }

  cancel(id: string, reason: string): Promise<CancelOutcome> {
    return this.ask('cancel', { id, reason }) as Promise<CancelOutcome>;
  }

  list(limit: number): Promise<Listing[]> {
    return this.ask('list', { limit }) as Promise<Listing[]>;
  }

  info(): Promise<HostInfo> {
    return this.ask('info', {}) as Promise<HostInfo>;
  }

  /** What operation `op` returned; rejects when it failed or timed out, or `signal` took it back (the host then stops too). */
  ask(op: string, args: object, { signal, timeoutMs = ASK_SLACK_MS }: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<unknown> {
    if (this.lost) return Promise.reject(new Error('the connection to the run host is closed'));
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
        else resolve(reply.value);
      });
      send(this.socket, { id, op, args });
    });
  }

  /** Disconnects this client; the host's runs go on. */
  async close(): Promise<void> {
    this.socket.destroy();
    this.closed();
  }

  private received(message: Record<string, unknown>): void {
    if (this.greet) {
      this.greet(message);
      this.greet = undefined;
    } else if (typeof message.id === 'number') this.pending.get(message.id)?.(message as Reply);
  }

  /** `lost` is set before the asks still waiting fail, so a caller that retries reaches a host again. */
  private closed(): void {
    if (this.lost) return;
    this.lost = true;
    this.greet?.(new Error('the run host closed the connection before saying who it is'));
    const error = new Error('the connection to the run host was lost');
    for (const settle of [...this.pending.values()]) settle(error);
  }
}
