import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Deadline } from '../clock.js';
import type { Config } from '../config/config.js';
import type { OpenRouterClient } from '../openrouter/client.js';
import { priceCatalogFor, takesStructuredOutput, type PriceCatalog } from '../openrouter/price-catalog.js';
import { Redactor } from '../openrouter/redact.js';
import { err, ok, type Result } from '../result.js';
import { runStorage } from '../store/run-store.js';
import { isRunId, type RunStorage } from '../store/store.js';
import type { Reserve } from './admission.js';
import { changeWithin, waitsForChange } from './change-signal.js';
import { createLimiter, type Limiter } from './limiter.js';
import { STATUS, stateOf } from './record.js';
import type { Run } from './run.js';
import { Runs } from './runs.js';
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
} from './service.js';
import type { RunRequest } from './request.js';
import { viewOf } from './view.js';

export interface LocalRunsOptions {
  limiter?: Limiter;
  notice?: string;
  release?: () => Promise<void>;
  /** Team mode, one member's runs: where they are kept, prices shared by every member, their budget, and who they are. */
  team?: { store: RunStorage | undefined; prices: PriceCatalog; reserve: Reserve; member: string };
}

/** Runs executed in this process: one limiter, store, client and model catalog (prices, and which models take structured output). */
export function localRuns(
  config: Config,
  client: OpenRouterClient,
  logger: Logger,
  options: LocalRunsOptions = {},
): { runs: Runs; service: LocalRunService } {
  const redactor = new Redactor(config.apiKey);
  const { team } = options;
  const store = team ? team.store : runStorage(config);
  const prices = team?.prices ?? priceCatalogFor(client);
  const runs = new Runs({
    deps: {
      client,
      limiter: options.limiter ?? createLimiter(config.maxConcurrency),
      logger,
      synthesisMaxChars: config.synthesisMaxChars,
      // Synthesis uses at most this much of an answer, and a result shows at most this much.
      keepChars: Math.max(config.synthesisMaxChars, config.maxAnswerChars),
      structuredOutput: (model) => takesStructuredOutput(prices, model),
    },
    store,
    // Two members asking the same are two requests: each pays for, and sees, only their own run.
    upstream: team ? `${upstreamIdentity(config)} member ${team.member}` : upstreamIdentity(config),
    admission: {
      prices,
      maxPromptChars: config.maxPromptChars,
      synthesisMaxChars: config.synthesisMaxChars,
      ...(team ? { reserve: team.reserve } : {}),
    },
    logger,
    redact: (text) => redactor.secretIn(text),
  });
  return { runs, service: new LocalRunService(runs, store, options.notice, options.release) };
}

/** The same prompt sent elsewhere, or with another key, is another request. */
function upstreamIdentity(config: Pick<Config, 'baseUrl' | 'apiKey'>): string {
  return `${config.baseUrl} ${createHash('sha256').update(config.apiKey).digest('hex').slice(0, 16)}`;
}

/** A huge prompt makes a huge journal. */
const LISTED_RECORD_BYTES = 2 * 1024 * 1024;

/** What the run host offers its clients, and what a client uses directly where no run host can start. */
export class LocalRunService implements RunService {
  constructor(
    private readonly runs: Runs,
    private readonly store: RunStorage | undefined,
    readonly notice: string | undefined = undefined,
    /** The upstream client's connections. */
    private readonly release: () => Promise<void> = async () => undefined,
  ) {}

  async start(request: RunRequest, options: StartOptions = {}): Promise<StartOutcome> {
    const started = await this.runs.start(request, options);
    if ('refused' in started) return started;
    const { run, joined } = started;
    return { id: 'live' in run ? run.live.id : run.stored.id, joined };
  }

  async watch(id: string, options: WatchOptions): Promise<Result<Watched, LookupError>> {
    const { viewChars } = options;
    // Held for its view: a run leaves `live` the moment it ends whole on disk.
    const run = viewChars === undefined || !isRunId(id) ? undefined : this.runs.liveRun(id);
    const watched = options.untilSettled ? await this.watchUntilSettled(id, options) : await this.watchOnce(id, options);
    if (!watched.ok || !run || viewChars === undefined || !STATUS[watched.value.state.status].settled) return watched;
    return ok({ ...watched.value, view: viewOf(run.state(), run.texts(), viewChars) });
  }

  private async watchUntilSettled(id: string, { since, waitMs, signal }: WatchOptions): Promise<Result<Watched, LookupError>> {
    const deadline = Deadline.after(waitMs);
    for (;;) {
      const watched = await this.watchOnce(id, { since, waitMs: deadline.msLeft(), signal });
      if (!watched.ok || STATUS[watched.value.state.status].settled || deadline.msLeft() === 0 || signal?.aborted) return watched;
      since = watched.value.version;
    }
  }

  private async watchOnce(id: string, { since, waitMs, signal }: WatchOptions): Promise<Result<Watched, LookupError>> {
    if (!isRunId(id)) return err(badId(id));
    const run = this.runs.liveRun(id);
    if (run) return ok(await watchLive(run, since, waitMs, signal));
    if (!this.runs.stored) return err(notSaved(id));
    const watched = await this.runs.stored.watch(id, since, waitMs, signal);
    return watched.ok ? ok({ state: stateOf(watched.value.record), version: watched.value.version }) : watched;
  }

  async view(id: string, maxChars: number): Promise<Result<RunView, LookupError>> {
    if (!isRunId(id)) return err(badId(id));
    const run = this.runs.liveRun(id);
    if (run) return ok(viewOf(run.state(), run.texts(), maxChars));
    if (!this.runs.stored) return err(notSaved(id));
    const opened = await this.runs.stored.open(id);
    if (!opened.ok) return opened;
    const { record, texts } = await opened.value.texts(maxChars);
    return ok(viewOf(stateOf(record), texts, maxChars));
  }

  /**
   * A run another process executes is refused here, unless `stopElsewhere` is given (team mode,
   * where processes can tell each other to stop): it is called once the run was read as running
   * and is not live here, so that it need not read the run again.
   */
  async cancel(id: string, reason: string, stopElsewhere?: () => Promise<CancelOutcome>): Promise<CancelOutcome> {
    const run = isRunId(id) ? this.runs.liveRun(id) : undefined;
    if (run?.status === 'running') {
      run.stop('cancelled', reason);
      return { stopped: true };
    }
    const found = await this.watch(id, { waitMs: 0 });
    if (!found.ok) return { stopped: false, reason: found.error.message };
    const { status, owner } = found.value.state;
    if (status !== 'running') return { stopped: false, reason: `run ${id} is not running: it is ${status}` };
    if (stopElsewhere && !this.runs.liveRun(id)) return stopElsewhere();
    return { stopped: false, reason: `run ${id} is executed by another process (pid ${owner.pid} on ${owner.host}); stop it there` };
  }

  /** An orphan folder (no journal, or a damaged one) is left out; a journal too large to read for a list is listed by its id. */
  async list(limit: number): Promise<Listing[]> {
    const onDisk = (await this.store?.listRuns(limit).catch(() => [])) ?? [];
    const ids = [...new Set([...this.runs.liveIds(), ...onDisk])].sort().reverse().slice(0, limit);
    const listed = await Promise.all(ids.map((id) => this.listed(id)));
    return listed.filter((listing): listing is Listing => listing !== undefined);
  }

  onStart(listener: () => void): void {
    this.runs.onStart(listener);
  }

  finished(): Promise<void> {
    return this.runs.idle();
  }

  async close(): Promise<void> {
    await this.runs.interruptAll();
    await this.release();
  }

  private async listed(id: string): Promise<Listing | undefined> {
    const run = this.runs.liveRun(id);
    if (run) return { id, state: run.state() };
    const opened = await this.runs.stored?.read(id, LISTED_RECORD_BYTES);
    if (opened?.ok) return { id, state: stateOf(opened.value.effective()) };
    return opened?.error.kind === 'too_large' ? { id, state: undefined } : undefined;
  }
}

async function watchLive(run: Run, since: number | undefined, waitMs: number, signal: AbortSignal | undefined): Promise<Watched> {
  if (waitsForChange(since, run.version, waitMs, STATUS[run.status].settled)) await changeWithin(run.nextChange(since), waitMs, signal);
  return { state: run.state(), version: run.version };
}

const badId = (id: string): LookupError => ({
  kind: 'bad_id',
  message: `"${id.slice(0, 80)}" is not a run id. A run id looks like 2026-11-23T16-15-00.123Z_9f3a1c2e: use the run_id from a process_prompt result.`,
});

const notSaved = (id: string): LookupError => ({
  kind: 'not_found',
  message: `there is no run ${id}: runs are not saved (PARALLEL_LLM_SAVE_OUTPUTS=false), so only runs of this process from the last 10 minutes can be read`,
});
