import { setTimeout as sleep } from 'node:timers/promises';
import { Deadline } from '../clock.js';
import type { Result } from '../result.js';
import { StoreError, newRunId, type Claim, type RunPlace, type RunStorage } from '../store/store.js';
import type { Admit, Admitted, AdmittedResume } from './admission.js';
import { STATUS, type Owner, type RunRecord } from './record.js';
import type { Run } from './run.js';
import type { StartRefusal } from './start-refusal.js';
import type { StoredRun, StoredRuns } from './stored.js';

/** The same request within this long of its run's end returns that run instead of paying again. */
export const REUSE_MS = 10 * 60 * 1000;
/** How long a claimant has to write its run's first journal entry. */
const FOLLOW_MS = 10_000;
const FOLLOW_POLL_MS = 20;
/** A stopped run older than this is asked anew rather than resumed. */
const RESUME_WITHIN_MS = 24 * 60 * 60 * 1000;
/** Rounds of claiming before a request whose claimants keep dying is simply started. */
const MAX_ROUNDS = 3;
/** Races lost in a row before a claim gives up: each loss means another process has just claimed. */
const MAX_LOST_RACES = 8;

export type Found = { live: Run } | { stored: StoredRun };

export type Claimed =
  | { start: string; place?: RunPlace; admitted: Admitted }
  | { resume: StoredRun; admitted: AdmittedResume }
  | { follow: Found }
  | { refused: StartRefusal };

/** Leaves a claim's judgement untaken: the run may not start, and nobody is to follow it. */
class NotAdmitted {
  constructor(readonly refusal: StartRefusal) {}
}

interface ClaimContext {
  store: RunStorage;
  stored: StoredRuns;
  owner: Owner;
  liveRun(id: string): Run | undefined;
}

/**
 * Of processes asking the same request at once, only the claim's winner pays; the others follow
 * its run. A refused run leaves no claim, and a claimant that dies before its journal is claimed over.
 */
export async function claimRequest(key: string, context: ClaimContext, fresh: boolean, admit: Admit): Promise<Claimed> {
  const { store, stored, owner } = context;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const id = newRunId();
    let admission: { start: Admitted } | { resume: StoredRun; admitted: AdmittedResume } | undefined;
    // A new run's folder is made before its claim: a claim naming no folder names no run, and is taken over at once.
    let folder: Promise<RunPlace> | undefined;
    const taken = await takeClaim(store, key, async (latest) => {
      const verdict = fresh ? { fresh: true } : await judge(latest, key, stored, store, owner.version);
      if ('follow' in verdict) return undefined;
      if ('resume' in verdict) {
        admission = { resume: verdict.resume, admitted: allowed(await admit.resume(verdict.resume)) };
        return { run_id: verdict.resume.id, owner, at: new Date().toISOString() };
      }
      admission = { start: allowed(await admit.fresh(id)) };
      folder ??= store.createRun(id);
      await folder;
      return { run_id: id, owner, at: new Date().toISOString() };
    }).catch(async (error: unknown) => {
      if (folder) await discard(folder);
      if (error instanceof NotAdmitted) return { refused: error.refusal };
      throw error;
    });
    if ('refused' in taken) return taken;
    if (taken.taken && admission) return 'resume' in admission ? admission : { start: id, place: await folder, admitted: admission.start };
    if (folder) await discard(folder);
    const followed = await follow(taken.claim, context);
    if (followed) return { follow: followed };
  }
  const id = newRunId();
  const admitted = await admit.fresh(id);
  return admitted.ok ? { start: id, admitted: admitted.value } : { refused: admitted.error };
}

/** The claim made (`taken`) or the one to follow, and its generation. */
export interface Taken {
  taken: boolean;
  generation: number;
  claim: Claim;
}

/**
 * Claims request `key` among all processes sharing the store: `next` sees the latest claim and returns the claim
 * to make after it, or undefined to follow it. Whoever makes generation n + 1 takes over from the claimant of n;
 * a lost race calls `next` again, so the loser follows the winner.
 */
export async function takeClaim(
  store: Pick<RunStorage, 'latestClaim' | 'makeClaim'>,
  key: string,
  next: (latest: Claim | undefined) => Claim | undefined | Promise<Claim | undefined>,
): Promise<Taken> {
  for (let lost = 0; lost <= MAX_LOST_RACES; lost++) {
    const latest = await store.latestClaim(key);
    const wanted = await next(latest?.claim);
    if (!wanted) {
      if (!latest?.claim) throw new TypeError(`no claim of ${key} to follow`);
      return { taken: false, generation: latest.generation, claim: latest.claim };
    }
    const generation = (latest?.generation ?? 0) + 1;
    if (await store.makeClaim(key, generation, wanted)) return { taken: true, generation, claim: wanted };
  }
  throw new StoreError('ERR_STORE_CONTENDED', `the claim of ${key} was lost ${MAX_LOST_RACES + 1} times in a row`);
}

const discard = (folder: Promise<RunPlace>): Promise<void> => folder.then((made) => made.discard()).catch(() => undefined);

function allowed<T>(admitted: Result<T, StartRefusal>): T {
  if (!admitted.ok) throw new NotAdmitted(admitted.error);
  return admitted.value;
}

/** Waits for the claimant's own journal, which follows its claim by moments; undefined when the claimant died first. */
async function follow(claim: Claim, { stored, liveRun }: ClaimContext): Promise<Found | undefined> {
  const owner = claim.owner as Owner;
  for (const deadline = Deadline.after(FOLLOW_MS); ;) {
    const live = liveRun(claim.run_id);
    if (live) return { live };
    const opened = await stored.read(claim.run_id);
    if (opened.ok && opened.value.effective().owner.instance === owner.instance) return { stored: opened.value };
    if (deadline.msLeft() === 0 || !(await stored.liveness.processAlive(owner))) return opened.ok ? { stored: opened.value } : undefined;
    await sleep(FOLLOW_POLL_MS);
  }
}

export function reusable(record: Pick<RunRecord, 'status' | 'finished_at' | 'updated_at'>): boolean {
  if (!STATUS[record.status].reusable) return false;
  return record.status === 'running' || Date.now() - Date.parse(record.finished_at ?? record.updated_at) < REUSE_MS;
}

type Verdict = { follow: true } | { resume: StoredRun } | { fresh: true };

/** A stopped run is taken over only when recent and of this very version; anything unreadable is a fresh start. */
async function judge(
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
