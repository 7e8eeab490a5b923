import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { OpenRouterClient } from '../openrouter/client.js';
import { priceCatalogFor, type PriceCatalog } from '../openrouter/price-catalog.js';
import { Redactor } from '../openrouter/redact.js';
import { RunStore } from '../store/run-store.js';
import type { RunStorage } from '../store/store.js';
import type { Reserve } from './admission.js';
import { createLimiter, type Limiter } from './limiter.js';
import { LocalRunService } from './local.js';
import { Runs } from './runs.js';

export interface LocalRunsOptions {
  limiter?: Limiter;
  notice?: string;
  release?: () => Promise<void>;
  /** Team mode, one member's runs: where they are kept, prices shared by every member, their budget, and who they are. */
  team?: { store: RunStorage | undefined; prices: PriceCatalog; reserve: Reserve; member: string };
}

/** Runs executed in this process: one limiter, store, client and price catalog. */
export function localRuns(
  config: Config,
  client: OpenRouterClient,
  logger: Logger,
  options: LocalRunsOptions = {},
): { runs: Runs; service: LocalRunService } {
  const redactor = new Redactor(config.apiKey);
  const { team } = options;
  const store = team ? team.store : config.saveOutputs ? new RunStore(config.outputDir) : undefined;
  const runs = new Runs({
    deps: {
      client,
      limiter: options.limiter ?? createLimiter(config.maxConcurrency),
      logger,
      synthesisMaxChars: config.synthesisMaxChars,
      // Synthesis uses at most this much of an answer, and a result shows at most this much.
      keepChars: Math.max(config.synthesisMaxChars, config.maxAnswerChars),
    },
    store,
    // Two members asking the same are two requests: each pays for, and sees, only their own run.
    upstream: team ? `${upstreamIdentity(config)} member ${team.member}` : upstreamIdentity(config),
    admission: {
      prices: team?.prices ?? priceCatalogFor(client),
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
