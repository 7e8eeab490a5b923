import type { Claim, RunStorage } from '../store/store.js';
import { STATUS, type Owner, type RunRecord } from './record.js';
import type { StoredRun } from './stored.js';
import type { StoredRuns } from './stored-runs.js';

/** The same request within this long of its run's end returns that run instead of paying again. */
export const REUSE_MS = 10 * 60 * 1000;
/** How long a claimant has to write its run's first journal entry, its run's folder made. */
export const FOLLOW_MS = 10_000;
/** A stopped run older than this is asked anew rather than resumed. */
const RESUME_WITHIN_MS = 24 * 60 * 60 * 1000;

/** Whether a run may be returned for the same request, paying nothing: running, or finished well and recently. */
export function reusable(record: Pick<RunRecord, 'status' | 'finished_at' | 'updated_at'>): boolean {
  if (!STATUS[record.status].reusable) return false;
  return record.status === 'running' || Date.now() - Date.parse(record.finished_at ?? record.updated_at) < REUSE_MS;
}

/** What the request's latest claim leads to: follow it (its run is live, or reusable), take its run over, or start afresh. */
export type Verdict = { follow: true } | { resume: StoredRun } | { fresh: true };

/**
 * Judges the latest claim of a request, from the journal of its run: a live or recent run is
 * followed; a stopped one (interrupted or cancelled, in the last day, by this very version) is
 * taken over; anything else (no claim, a damaged journal, a dead claimant that never wrote one,
 * another version's run) is a fresh start. A live claimant that has not written its journal yet
 * (a new run, or one it has just taken over) is followed.
 */
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

/** Whether a claim's run is being started: its folder is there (made before the claim), its first journal entry moments away. */
async function starting(claim: Claim, store: RunStorage): Promise<boolean> {
  if (!(Date.now() - Date.parse(claim.at) <= FOLLOW_MS)) return false;
  return (await store.openRun(claim.run_id).catch(() => undefined)) !== undefined;
}
