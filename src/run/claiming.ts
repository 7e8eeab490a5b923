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

export type Found = { live: Run } | { stored: StoredRun };

export type Claimed<A, B, R> =
  { start: string; place?: RunPlace; admitted: A } | { resume: StoredRun; admitted: B } | { follow: Found } | { refused: R };

interface Admit<A, B, R> {
  /** `id`: the new run's. */
  fresh(id: string): Promise<Result<A, R>>;
  resume(stopped: StoredRun): Promise<Result<B, R>>;
}

/** Leaves a claim's judgement untaken: the run may not start, and nobody is to follow it. */
class NotAdmitted<R> {
  constructor(readonly refusal: R) {}
}

interface ClaimContext {
  store: RunStorage;
  stored: StoredRuns;
  owner: OwnerIdentity;
  liveRun(id: string): Run | undefined;
}

/**
 * Of processes asking the same request at once, only the claim's winner pays; the others follow
 * its run. A refused run leaves no claim, and a claimant that dies before its journal is claimed over.
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
        admission = { start: allowed(await admit.fresh(id)) };
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
    if (taken.taken && admission) return 'resume' in admission ? admission : { start: id, place: await folder, admitted: admission.start };
    if (folder) await discard(folder);
    const followed = await follow(taken.claim, context);
    if (followed) return { follow: followed };
  }
  const id = newRunId();
  const admitted = await admit.fresh(id);
  return admitted.ok ? { start: id, admitted: admitted.value } : { refused: admitted.error };
}

const discard = (folder: Promise<RunPlace>): Promise<void> => folder.then((made) => made.discard()).catch(() => undefined);

function allowed<T, R>(admitted: Result<T, R>): T {
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
