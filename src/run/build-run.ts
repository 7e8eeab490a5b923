import type { Logger } from 'pino';
import { newRunId, type RunPlace, type RunStorage } from '../store/store.js';
import type { Admitted } from './admission.js';
import type { OwnerIdentity } from './liveness.js';
import type { RunRecord } from './record.js';
import type { RunRequest } from './request.js';
import { Run } from './run.js';

/** What making a run takes from the process that runs it. */
export interface RunMaking {
  store: RunStorage | undefined;
  logger: Logger;
  owner: OwnerIdentity;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
}

/**
 * A run ready to start: new, in a place made for it (a place that cannot be made costs it
 * nothing but a warning: its answers are then not saved), or taken over in its own place.
 */
export async function buildRun(
  making: RunMaking,
  request: RunRequest,
  key: string,
  admitted: Admitted,
  existing: { id?: string; place?: RunPlace; resumed?: { record: RunRecord; answers: Map<number, string> } } = {},
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
