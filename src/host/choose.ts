import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RunService } from '../run/service.js';
import { reachHost, openChannel } from './connect.js';
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
  if ('channel' in reached) {
    logger.info({ socket: paths.socket }, 'runs execute in the run host');
    return new HostRunService(reached.channel, async () => {
      const again = await reachHost(paths, version);
      if ('channel' in again) return again.channel;
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

/** This process's own runs (src/host/here.ts), loaded only when no host runs them. */
async function runsHere(...args: Parameters<typeof import('./here.js').runsHere>): Promise<RunService> {
  return (await import('./here.js')).runsHere(...args);
}

/** The host for these settings if one is running now, without starting one. */
export async function runningHost(config: Config, version: string): Promise<HostRunService | undefined> {
  if (config.runHost === 'off') return undefined;
  const paths = hostPaths(config, version);
  const channel = await openChannel(paths, version).catch(() => undefined);
  return channel && new HostRunService(channel, () => openChannel(paths, version));
}
