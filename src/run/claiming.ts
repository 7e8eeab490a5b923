import { setTimeout as sleep } from 'node:timers/promises';
import { Deadline } from '../clock.js';
import type { Result } from '../result.js';
import { newRunId, type Claim, type RunPlace, type RunStorage } from '../store/store.js';
import type { OwnerIdentity } from './liveness.js';
import type { Owner } from './record.js';
import { FOLLOW_MS, judge } from './reuse.js';
import type { Run } from './run.js';
import type { StoredRun } from './stored.js';
import type { StoredRuns } from './stored-runs.js';

const FOLLOW_POLL_MS = 20;
/** Rounds of claiming before a request whose claimants keep dying is simply started. */
const MAX_ROUNDS = 3;

/** A run by id: this process's (live), or one known from its folder. */
export type Found = { live: Run } | { stored: StoredRun };

/**
 * What claiming a request led to: a new run to start (under this id) or a stopped run to take
 * over, each as `admit` admitted it; another's run to follow; or `admit`'s refusal.
 */
export type Claimed<A, B, R> =
  { start: string; place?: RunPlace; admitted: A } | { resume: StoredRun; admitted: B } | { follow: Found } | { refused: R };

/** Whether this process may start the request's run, new or a stopped one taken over, and what with. */
export interface Admit<A, B, R> {
  fresh(): Promise<Result<A, R>>;
  resume(stopped: StoredRun): Promise<Result<B, R>>;
}

/** Leaves a claim's judgement untaken: the run may not start, and nobody is to follow it. */
class NotAdmitted<R> {
  constructor(readonly refusal: R) {}
}

export interface ClaimContext {
  store: RunStorage;
  stored: StoredRuns;
  owner: OwnerIdentity;
  /** This process's run by id, while in memory. */
  liveRun(id: string): Run | undefined;
}

/**
 * Claims a request in the store, so that of any processes asking at the same moment one pays:
 * the claim's winner starts a new run (or, `fresh` not asked for, takes over the request's
 * stopped run), and the others follow the winner's run. A run is claimed only once `admit`
 * lets it start; a refused one leaves no claim behind. A claimant that dies before its journal
 * says anything is claimed over; after a few such rounds the run is simply started.
 */
export async function claimRequest<A, B, R>(
  key: string,
  context: ClaimContext,
  fresh: boolean,
  admit: Admit<A, B, R>,
): Promise<Claimed<A, B, R>> {
  const { store, stored, owner } = context;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const id = newRunId();
    // What the claim that was taken admitted (a lost race judges again).
    let admission: { start: A } | { resume: StoredRun; admitted: B } | undefined;
    // A new run's folder is made before its claim: a claim naming no folder names no run, and is taken over at once.
    let folder: Promise<RunPlace> | undefined;
    const taken = await store
      .claim(key, async (latest) => {
        const verdict = fresh ? { fresh: true } : await judge(latest, key, stored, store, owner.version);
        if ('follow' in verdict) return undefined;
        if ('resume' in verdict) {
          admission = { resume: verdict.resume, admitted: allowed(await admit.resume(verdict.resume)) };
          return { run_id: verdict.resume.id, owner, at: new Date().toISOString() };
        }
        admission = { start: allowed(await admit.fresh()) };
        folder ??= store.createRun(id);
        await folder;
        return { run_id: id, owner, at: new Date().toISOString() };
      })
      .catch(async (error: unknown) => {
        if (folder) await discard(folder);
        if (error instanceof NotAdmitted) return { refused: error.refusal as R };
        throw error;
      });
    if ('refused' in taken) return taken;
    // A claim is made only once admitted.
    if (taken.taken && admission) return 'resume' in admission ? admission : { start: id, place: await folder, admitted: admission.start };
    if (folder) await discard(folder);
    const followed = await follow(taken.claim, context);
    if (followed) return { follow: followed };
  }
  const admitted = await admit.fresh();
  return admitted.ok ? { start: newRunId(), admitted: admitted.value } : { refused: admitted.error };
}

/** The empty folder of a run that was not claimed after all; one that cannot be removed is left. */
const discard = (folder: Promise<RunPlace>): Promise<void> => folder.then((made) => made.discard()).catch(() => undefined);

/** An admission's value; a refusal leaves the claim untaken. */
function allowed<T, R>(admitted: Result<T, R>): T {
  if (!admitted.ok) throw new NotAdmitted(admitted.error);
  return admitted.value;
}

/**
 * The run a claim names, once the claimant's own journal is there: a taker's first entry
 * follows its claim by moments (and a resumed run's journal still names its dead owner until
 * then). Undefined when the claimant died first.
 */
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
