import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { RunService } from '../run/service.js';
import type { Reached } from './connect.js';
import type { HostRunService } from './host-run-service.js';
import { hostPaths } from './paths.js';
import type { HostInfo } from './protocol.js';
import { useRuntimeFlags } from './runtime-flags.js';

type Need = 'execute' | 'read';
type Runs = Pick<RunService, 'start' | 'watch' | 'view' | 'cancel' | 'list'>;
/** How a client reaches the run host: `start` says whether it may start one. */
type ReachHost = (start: boolean) => Promise<Reached>;

/**
 * Decides where this process's runs execute: in the run host (started if need be) so that they
 * outlive this process, or here where no host can be (PARALLEL_LLM_RUN_HOST=off, a sandbox).
 * Reading a run never starts a host; a call cut off by a lost host is tried once more.
 */
export class RunHostClient implements RunService {
  private host: HostRunService | undefined;
  private here: Promise<RunService> | undefined;
  private executesHere: boolean;
  notice: string | undefined;
  private deciding: Promise<unknown> = Promise.resolve();
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    version: string,
    private readonly reach: ReachHost = socketReach(config, version),
  ) {
    this.executesHere = config.runHost === 'off';
    if (this.executesHere) useRuntimeFlags('runsHere');
  }

  async start(...args: Parameters<RunService['start']>): ReturnType<RunService['start']> {
    const started = await this.use('execute', (runs) => runs.start(...args));
    if (!('refused' in started)) for (const listener of this.listeners) listener();
    return started;
  }

  watch: RunService['watch'] = (id, options) => this.use('read', (runs) => runs.watch(id, options), options.signal);
  view: RunService['view'] = (id, maxChars) => this.use('read', (runs) => runs.view(id, maxChars));
  cancel: RunService['cancel'] = (id, reason) => this.use('read', (runs) => runs.cancel(id, reason));
  list: RunService['list'] = (limit) => this.use('read', (runs) => runs.list(limit));

  /** The running host's account of itself; never starts one. */
  async hostInfo(): Promise<HostInfo | undefined> {
    const runs = await this.decide('read');
    return runs === this.host ? this.host.info() : undefined;
  }

  onStart(listener: () => void): void {
    this.listeners.push(listener);
  }

  async finished(): Promise<void> {
    await (await this.here)?.finished();
  }

  async close(): Promise<void> {
    await Promise.all([this.host?.close(), this.here?.then((runs) => runs.close())]);
  }

  private async use<T>(need: Need, operation: (runs: Runs) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const runs = await this.decide(need);
    const host = runs === this.host ? this.host : undefined;
    try {
      return await operation(runs);
    } catch (error) {
      if (!host?.lost || signal?.aborted) throw error;
      return operation(await this.decide(need));
    }
  }

  /** One decision at a time, so that calls at once start or reach one host, not one each. */
  private decide(need: Need): Promise<Runs> {
    if (this.host && !this.host.lost) return Promise.resolve(this.host);
    const decided = this.deciding.then(() => this.decideNow(need));
    this.deciding = decided.catch(() => undefined);
    return decided;
  }

  private async decideNow(need: Need): Promise<Runs> {
    if (this.host && !this.host.lost) return this.host;
    if (this.executesHere) return this.runsHere();
    void this.host?.close();
    this.host = undefined;
    const reached = await this.reach(need === 'execute');
    if ('runs' in reached) {
      this.logger.info('runs execute in the run host');
      this.host = reached.runs;
      return reached.runs;
    }
    if (need === 'read') return this.runsHere();
    this.logger.warn({ reason: reached.unavailable }, 'no run host: runs execute in this process');
    this.executesHere = true;
    useRuntimeFlags('runsHere');
    this.notice = `Runs execute in this server process, since the run host could not start (${reached.unavailable}): a run stops if the client ends this server, and the same request afterwards resumes it, asking only the models without a saved answer.`;
    return this.runsHere();
  }

  /** Only read while a host executes the runs; executed here where there is none. */
  private runsHere(): Promise<RunService> {
    this.here ??= loadRunsHere(this.config, this.logger);
    return this.here;
  }
}

/** The run host of these settings, over its socket. */
function socketReach(config: Config, version: string): ReachHost {
  return async (start) => (await import('./connect.js')).reachHost(hostPaths(config, version), version, { start });
}

/** Loaded only when needed: a relay never loads the code that runs runs. */
async function loadRunsHere(config: Config, logger: Logger): Promise<RunService> {
  const [{ OpenRouterClient }, { localRuns }] = await Promise.all([import('../openrouter/client.js'), import('../run/local.js')]);
  const client = OpenRouterClient.fromConfig(config, logger);
  return localRuns(config, client, logger, { release: () => client.close() }).service;
}
