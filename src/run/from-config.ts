import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createLimiter, type Limiter } from './limiter.js';
import { Redactor } from '../openrouter/redact.js';
import { RunStore } from '../store/run-store.js';
import type { ChatCompleter } from './orchestrate.js';
import { Runs } from './runs.js';

/** The runs of this process as the configuration sets them up: one limiter, one store, one client. */
export function runsFromConfig(config: Config, client: ChatCompleter, logger: Logger, limiter: Limiter = createLimiter(config.maxConcurrency)): Runs {
  const redactor = new Redactor(config.apiKey);
  return new Runs({
    deps: {
      client,
      limiter,
      logger,
      synthesisMaxChars: config.synthesisMaxChars,
      // Synthesis uses at most this much of an answer, and a result shows at most this much.
      keepChars: Math.max(config.synthesisMaxChars, config.maxAnswerChars),
    },
    store: config.saveOutputs ? new RunStore(config.outputDir) : undefined,
    upstream: config.baseUrl,
    logger,
    redact: (text) => redactor.secretIn(text),
  });
}
