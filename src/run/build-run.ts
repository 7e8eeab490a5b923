import path from 'node:path';
import type { Logger } from 'pino';
import { newRunId, type RunFolder, type RunStore } from '../store/run-store.js';
import type { Admitted } from './admission.js';
import { RunFiles } from './files.js';
import type { OwnerIdentity } from './liveness.js';
import type { RunRecord } from './record.js';
import type { RunRequest } from './request.js';
import { Run } from './run.js';

/** What making a run takes from the process that runs it. */
export interface RunMaking {
  store: RunStore | undefined;
  logger: Logger;
  owner: OwnerIdentity;
  /** Removes the key from text that is written to a file. */
  redact: (text: string) => string;
}

/**
 * A run ready to start: new, with a folder made for it (a folder that cannot be made costs it
 * nothing but a warning: its answers are then not saved), or taken over in its own folder.
 */
export function buildRun(
  making: RunMaking,
  request: RunRequest,
  key: string,
  admitted: Admitted,
  existing: { id?: string; folder?: Promise<RunFolder>; resumed?: { record: RunRecord; answers: Map<number, string> } } = {},
): Run {
  const { store, logger } = making;
  const id = existing.id ?? newRunId();
  let run: Run | undefined;
  const warn = (message: string) => run?.warn(message);
  const files = store && new RunFiles(path.join(store.rootDir, id), existing.folder ?? makeFolder(store, id, warn, logger), warn, logger);
  const { cost, earlier } = admitted;
  run = new Run({ id, key, request, owner: making.owner, files, redact: making.redact, resumed: existing.resumed, cost, earlier });
  for (const warning of admitted.warnings) run.warn(warning);
  return run;
}

function makeFolder(store: RunStore, id: string, warn: (message: string) => void, logger: Logger): Promise<RunFolder | undefined> {
  return store.createRun(id).catch((error: unknown) => {
    const message = `could not create a run folder in ${store.rootDir}: ${(error as Error).message}; answers are not saved`;
    warn(message);
    logger.error({ err: error }, message);
    return undefined;
  });
}
