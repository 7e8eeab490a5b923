import type { Config } from '../config.js';
import { runningHost } from '../host/choose.js';
import { faceRunService } from '../host/lazy.js';
import type { HostRunService } from '../host/remote.js';
import { createLogger } from '../log/logger.js';
import type { RunService } from '../run/service.js';
import { packageVersion } from '../version.js';

/**
 * For the terminal's `runs` and `cancel`: the run host if one is running (it knows its live runs
 * and can stop them), else the run folders alone. Neither starts a host.
 */
export async function existingRuns(config: Config): Promise<{ service: RunService; host: HostRunService | undefined }> {
  const host = await runningHost(config, packageVersion());
  return { service: host ?? faceRunService(config, createLogger({ level: 'silent' }), packageVersion()), host };
}
