import v8 from 'node:v8';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { localRuns } from '../run/from-config.js';
import type { RunService } from '../run/service.js';
import { reachHost, openClient } from './connect.js';
import { hostPaths, socketProblem } from './paths.js';
import { HostRunService } from './remote.js';

/**
 * The runs a face uses: the run host's, reached (or started) over its socket, so that runs
 * outlive this process; or, where no host can be (PARALLEL_LLM_RUN_HOST=off, or a sandbox that
 * forbids it), this process's own, which then says so once to the user.
 */
export async function chooseRunService(config: Config, logger: Logger, version: string): Promise<RunService> {
  if (config.runHost === 'off') return runsHere(config, logger, undefined);
  const paths = hostPaths(config, version);
  const problem = socketProblem(paths);
  const reached = problem ? { unavailable: problem } : await reachHost(paths, version);
  if ('client' in reached) {
    logger.info({ socket: paths.socket }, 'runs execute in the run host');
    return new HostRunService(reached.client, async () => {
      const again = await reachHost(paths, version);
      if ('client' in again) return again.client;
      throw new Error(`the run host cannot be reached: ${again.unavailable}`);
    });
  }
  logger.warn({ reason: reached.unavailable }, 'no run host: runs execute in this process');
  return runsHere(
    config,
    logger,
    `Runs execute in this server process, since the run host could not start (${reached.unavailable}): a run stops if the client ends this server, and the same request afterwards resumes it, asking only the models without a saved answer.`,
  );
}

/** Runs executed (or, without a host, only read) in this process. */
export function runsHere(config: Config, logger: Logger, notice?: string): RunService {
  // This process may stream answers now: it needs what the bin left off for a relay (src/bin.ts), the
  // optimizing compiler and a young generation that grows (V8's factor, 2): held at its first 1 MiB,
  // streaming spent 10-13% of its time collecting, against 2.5-4% (bench/profiles/README.md).
  v8.setFlagsFromString('--opt --semi-space-growth-factor=2');
  const client = OpenRouterClient.fromConfig(config, logger);
  return localRuns(config, client, logger, { notice, release: () => client.close() }).service;
}

/** The host for these settings if one is running now, without starting one. */
export async function runningHost(config: Config, version: string): Promise<HostRunService | undefined> {
  if (config.runHost === 'off') return undefined;
  const paths = hostPaths(config, version);
  const client = await openClient(paths, version).catch(() => undefined);
  return client && new HostRunService(client, () => openClient(paths, version));
}
