import v8 from 'node:v8';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { localRuns } from '../run/local-runs.js';
import type { RunService } from '../run/service.js';

/**
 * Runs executed (or, without a host, only read) in this process. A module of its own, loaded
 * only when a face needs it: a server whose runs are the host's never loads the code that runs
 * them (the OpenRouter client, the run, the store).
 */
export function runsHere(config: Config, logger: Logger, notice?: string): RunService {
  // This process may stream answers now: it needs what the bin left off for a relay (src/bin.ts), the
  // optimizing compiler and a young generation that grows (V8's factor, 2): held at its first 1 MiB,
  // streaming spent 10-13% of its time collecting, against 2.5-4% (bench/profiles/README.md).
  v8.setFlagsFromString('--opt --semi-space-growth-factor=2');
  const client = OpenRouterClient.fromConfig(config, logger);
  return localRuns(config, client, logger, { notice, release: () => client.close() }).service;
}
