import type { Config } from '../config/config.js';
import { RunHostClient } from '../host/client.js';
import { createLogger } from '../log/logger.js';
import { packageVersion } from '../version.js';

/**
 * For the terminal's `runs` and `cancel`: they only read and stop runs, so they use the run
 * host if one is running (it knows its live runs and can stop them), else the run folders; they
 * never start a host.
 */
export function existingRuns(config: Config): RunHostClient {
  return new RunHostClient(config, createLogger({ level: 'silent' }), packageVersion());
}
