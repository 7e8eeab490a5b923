import type { Claim, RunStorage } from '../store/store.js';
import { STATUS, type Owner, type RunRecord } from './record.js';
import type { StoredRun } from './stored.js';
import type { StoredRuns } from './stored-runs.js';

/** The same request within this long of its run's end returns that run instead of paying again. */
export const REUSE_MS = 10 * 60 * 1000;
/** How long a claimant has to write its run's first journal entry. */
export const FOLLOW_MS = 10_000;
/** A stopped run older than this is asked anew rather than resumed. */
const RESUME_WITHIN_MS = 24 * 60 * 60 * 1000;

export function reusable(record: Pick<RunRecord, 'status' | 'finished_at' | 'updated_at'>): boolean {
  if (!STATUS[record.status].reusable) return false;
  return record.status === 'running' || Date.now() - Date.parse(record.finished_at ?? record.updated_at) < REUSE_MS;
}

type Verdict = { follow: true } | { resume: StoredRun } | { fresh: true };

/** A stopped run is taken over only when recent and of this very version; anything unreadable is a fresh start. */
export async function judge(
  latest: Claim | undefined,
  key: string,
  runs: StoredRuns,
  store: RunStorage,
  version: string | undefined,
): Promise<Verdict> {
  if (!latest) return { fresh: true };
  const claimant = latest.owner as Owner;
  const opened = await runs.read(latest.run_id);
  // No run there (yet): followed only while its claimant, alive, is making it; a damaged one cannot go on.
  if (!opened.ok) {
    const made = opened.error.kind === 'not_found' && (await starting(latest, store));
    return made && (await runs.liveness.processAlive(claimant)) ? { follow: true } : { fresh: true };
  }
  const record = opened.value.effective();
  if (record.request_key !== key) return { fresh: true };
  // Claimed by a live process whose own journal entry is still to come (it has just taken the run over).
  if (record.owner.instance !== claimant.instance && (await runs.liveness.processAlive(claimant))) return { follow: true };
  if (reusable(record)) return { follow: true };
  const recent = Date.now() - Date.parse(record.started_at) < RESUME_WITHIN_MS;
  return STATUS[record.status].resumable && recent && record.owner.version === version ? { resume: opened.value } : { fresh: true };
}

/** The folder is made before the claim, its first journal entry moments away. */
async function starting(claim: Claim, store: RunStorage): Promise<boolean> {
  if (!(Date.now() - Date.parse(claim.at) <= FOLLOW_MS)) return false;
  return (await store.openRun(claim.run_id).catch(() => undefined)) !== undefined;
}
