import type { Config } from '../config.js';
import { runningHost } from '../host/choose.js';
import { runsHere } from '../host/here.js';
import type { HostRunService } from '../host/remote.js';
import { createLogger } from '../log/logger.js';
import type { RunService } from '../run/service.js';
import { packageVersion } from '../version.js';

/**
 * For the terminal's `runs` and `cancel`: the run host if one is running (it knows its live runs
 * and can stop them), else the run folders alone, without asking for a host again. Neither
 * starts a host.
 */
export async function existingRuns(config: Config): Promise<{ service: RunService; host: HostRunService | undefined }> {
  const host = await runningHost(config, packageVersion());
  return { service: host ?? runsHere(config, createLogger({ level: 'silent' })), host };
}
