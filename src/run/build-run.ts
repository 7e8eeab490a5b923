import type { Logger } from 'pino';
import { newRunId, type RunStorage } from '../store/store.js';
import type { Admitted } from './admission.js';
import type { OwnerIdentity } from './liveness.js';
import type { NewRun } from './new-record.js';
import type { RunRequest } from './request.js';
import { Run } from './run.js';

export interface RunMaking {
  store: RunStorage | undefined;
  logger: Logger;
  owner: OwnerIdentity;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
}

/** A place that cannot be made costs the run only a warning: its answers are then not saved. */
export async function buildRun(
  making: RunMaking,
  request: RunRequest,
  key: string,
  admitted: Admitted,
  existing: Partial<Pick<NewRun, 'id' | 'place' | 'resumed'>> = {},
): Promise<Run> {
  const { store, logger } = making;
  const id = existing.id ?? newRunId();
  const warnings = [...admitted.warnings];
  const place =
    existing.place ??
    (await store?.createRun(id).catch((error: unknown) => {
      const message = `could not create a run folder in ${store.rootDir}: ${(error as Error).message}; answers are not saved`;
      warnings.push(message);
      logger.error({ err: error }, message);
      return undefined;
    }));
  const { cost, earlier } = admitted;
  const run = new Run({
    id,
    key,
    request,
    owner: making.owner,
    place,
    log: logger,
    redact: making.redact,
    resumed: existing.resumed,
    cost,
    earlier,
  });
  for (const warning of warnings) run.warn(warning);
  return run;
}
