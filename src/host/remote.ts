import { ok, type Result } from '../result.js';
import type { RunRequest } from '../run/request.js';
import type {
  CancelOutcome,
  Listing,
  LookupError,
  RunService,
  RunView,
  StartOptions,
  StartOutcome,
  Watched,
  WatchOptions,
} from '../run/service.js';
import type { HostChannel } from './channel.js';
import { viewFromWire, type HostInfo, type Operation, type Output } from './protocol.js';

/** Beyond a wait's own length, how long a host request may take before the face gives up on it. */
const REQUEST_SLACK_MS = 30_000;

/**
 * The run service of the run host, reached over its socket: every face operation is one ask
 * (channel.ts). When the connection is lost (the host exited, idle or killed), the next operation
 * reaches a host again, starting one if need be; an operation cut off by the loss is tried once
 * more there. Closing it disconnects this face and stops no run.
 *
 * A host is reached only when it is this very version (see HostChannel.open), so its replies
 * have the shapes protocol-schemas.ts declares (test/host-protocol.test.ts holds it to them),
 * and they are not parsed again here: that cost a server about 0.2 ms of every reply.
 */
export class HostRunService implements RunService {
  readonly notice = undefined;
  private channel: Promise<HostChannel>;
  private lost = false;
  private readonly startListeners = new Set<() => void>();

  constructor(
    first: HostChannel,
    private readonly reach: () => Promise<HostChannel>,
  ) {
    this.channel = Promise.resolve(this.watchLoss(first));
  }

  async start(request: RunRequest, options: StartOptions = {}): Promise<StartOutcome> {
    const started = await this.call('start', { request, fresh: options.fresh, max_cost_usd: options.maxCostUsd });
    if (!started.ok) throw new Error(started.error.message);
    if ('refused' in started.value) return started.value;
    for (const listener of this.startListeners) listener();
    return { id: started.value.run_id, joined: started.value.joined, state: started.value.state };
  }

  async watch(id: string, { since, waitMs, signal, untilSettled, viewChars }: WatchOptions): Promise<Result<Watched, LookupError>> {
    const args = { run_id: id, since, wait_ms: Math.round(waitMs), until_settled: untilSettled, view_chars: viewChars };
    const found = await this.call('watch', args, { signal, waitMs });
    if (!found.ok) return found;
    const { view, ...watched } = found.value;
    return ok(view ? { ...watched, view: viewFromWire(view) } : watched);
  }

  async view(id: string, maxChars: number): Promise<Result<RunView, LookupError>> {
    const found = await this.call('view', { run_id: id, max_chars: maxChars });
    return found.ok ? ok(viewFromWire(found.value)) : found;
  }

  async cancel(id: string, reason: string): Promise<CancelOutcome> {
    const outcome = await this.call('cancel', { run_id: id, reason });
    if (!outcome.ok) return { stopped: false, reason: outcome.error.message };
    return outcome.value.stopped ? { stopped: true } : { stopped: false, reason: outcome.value.reason ?? 'the run host did not say why' };
  }

  async list(limit: number): Promise<Listing[]> {
    const listed = await this.call('list', { limit });
    return listed.ok ? listed.value.runs.map((run) => ({ id: run.id, state: run.state ?? undefined })) : [];
  }

  /** The host's own account of itself: pid, version, runs and faces. */
  async info(): Promise<HostInfo> {
    const info = await this.call('info', {});
    if (!info.ok) throw new Error(info.error.message);
    return info.value;
  }

  onStart(listener: () => void): void {
    this.startListeners.add(listener);
  }

  /** The host's runs are not this process's: nothing to wait for. */
  async finished(): Promise<void> {}

  async close(): Promise<void> {
    await (await this.channel.catch(() => undefined))?.close();
  }

  /** One ask, on a fresh connection when the last one was lost, tried once more when the loss cut it off. */
  private async call<K extends Operation>(
    operation: K,
    args: object,
    wait: { signal?: AbortSignal; waitMs?: number } = {},
  ): Promise<Result<Output<K>, LookupError>> {
    for (let attempt = 1; ; attempt++) {
      if (this.lost) this.reconnect();
      const channel = await this.channel;
      try {
        const timeoutMs = (wait.waitMs ?? 0) + REQUEST_SLACK_MS;
        return (await channel.ask(operation, args, { signal: wait.signal, timeoutMs })) as Result<Output<K>, LookupError>;
      } catch (error) {
        if (!this.lost || attempt > 1 || wait.signal?.aborted) throw error;
      }
    }
  }

  private reconnect(): void {
    this.lost = false;
    this.channel = this.reach().then((channel) => this.watchLoss(channel));
    // A failed reach is reported by the call that awaits it; the next call tries again.
    this.channel.catch(() => (this.lost = true));
  }

  private watchLoss(channel: HostChannel): HostChannel {
    channel.onclose = () => (this.lost = true);
    return channel;
  }
}
