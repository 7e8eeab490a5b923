import { ok, type Result } from '../result.js';
import type { RunRequest } from '../run/request.js';
import type { CancelOutcome, Listing, LookupError, RunView, StartOptions, StartOutcome, Watched, WatchOptions } from '../run/service.js';
import type { HostChannel } from './channel.js';
import { viewFromWire, type HostInfo, type Operation, type Output } from './protocol.js';

/** Beyond a wait's own length, how long a host request may take before the client gives up on it. */
const REQUEST_SLACK_MS = 30_000;

/**
 * The runs of the run host, over one connection: each operation is one ask (channel.ts). Once
 * the connection is lost (the host exited or was killed) it is `lost`, and its owner
 * (client.ts) reaches a host again. The host speaks only to clients of its own version, so its
 * replies have the shapes protocol.ts declares and are not checked again here.
 */
export class HostRunService {
  lost = false;

  constructor(private readonly channel: HostChannel) {
    channel.onclose = () => (this.lost = true);
  }

  async start(request: RunRequest, options: StartOptions = {}): Promise<StartOutcome> {
    const started = await this.call('start', { request, fresh: options.fresh, max_cost_usd: options.maxCostUsd });
    if (!started.ok) throw new Error(started.error.message);
    if ('refused' in started.value) return started.value;
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

  /** The host's own account of itself: pid, version, runs and clients. */
  async info(): Promise<HostInfo> {
    const info = await this.call('info', {});
    if (!info.ok) throw new Error(info.error.message);
    return info.value;
  }

  /** Disconnects this client; the host's runs go on. */
  close(): Promise<void> {
    return this.channel.close();
  }

  private async call<K extends Operation>(
    operation: K,
    args: object,
    { signal, waitMs = 0 }: { signal?: AbortSignal; waitMs?: number } = {},
  ): Promise<Result<Output<K>, LookupError>> {
    return (await this.channel.ask(operation, args, { signal, timeoutMs: waitMs + REQUEST_SLACK_MS })) as Result<Output<K>, LookupError>;
  }
}
