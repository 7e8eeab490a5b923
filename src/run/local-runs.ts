import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { OpenRouterClient } from '../openrouter/client.js';
import { priceCatalogFor } from '../openrouter/price-catalog.js';
import { Redactor } from '../openrouter/redact.js';
import { runStorage } from '../store/run-store.js';
import { createLimiter, type Limiter } from './limiter.js';
import { LocalRunService } from './local.js';
import { Runs } from './runs.js';

/** Runs executed in this process: one limiter, store, client and price catalog. */
export function localRuns(
  config: Config,
  client: OpenRouterClient,
  logger: Logger,
  options: { limiter?: Limiter; notice?: string; release?: () => Promise<void> } = {},
): { runs: Runs; service: LocalRunService } {
  const redactor = new Redactor(config.apiKey);
  const store = runStorage(config);
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
    upstream: upstreamIdentity(config),
    admission: { prices: priceCatalogFor(client), maxPromptChars: config.maxPromptChars, synthesisMaxChars: config.synthesisMaxChars },
    logger,
    redact: (text) => redactor.secretIn(text),
  });
  return { runs, service: new LocalRunService(runs, store, options.notice, options.release) };
}

/** The same prompt sent elsewhere, or with another key, is another request. */
function upstreamIdentity(config: Pick<Config, 'baseUrl' | 'apiKey'>): string {
  return `${config.baseUrl} ${createHash('sha256').update(config.apiKey).digest('hex').slice(0, 16)}`;
}
