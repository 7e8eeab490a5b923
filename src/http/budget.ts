import type { Logger } from 'pino';
import type pg from 'pg';
import { err, ok, type Result } from '../result.js';
import type { Reserve } from '../run/admission.js';
import type { RunRequest } from '../run/request.js';
import type { StartRefusal } from '../run/start-refusal.js';
import type { Team } from '../team/load.js';

const DATABASE_DOWN =
  'the team database does not answer, so your budget cannot be checked and nothing was asked; try again in a few seconds';

/**
 * One member's budget as their runs meet it: every new run's worst case is held before it
 * starts (`reserve`, the admission's hook), the run's actual cost replaces it once the run ends
 * (`settle`), and a hold for a run that never started (its claim went elsewhere) is given back.
 */
export class MemberBudget {
  /** Per run id, so a claim retried for the same id holds once. */
  private readonly holds = new Map<string, Promise<Result<void, StartRefusal>>>();
  /** The ids held for each request while it is being started, to give back those that did not become its run. */
  private readonly byRequest = new WeakMap<RunRequest, string[]>();

  constructor(
    private readonly team: Team,
    private readonly pool: pg.Pool,
    private readonly memberId: string,
    private readonly logger: Logger,
  ) {}

  readonly reserve: Reserve = (runId, request, worst) => {
    const known = this.holds.get(runId);
    if (known) return known;
    // A model with no price (or no prices at all) leaves the worst case unknown: null, which only a member without a budget passes.
    const worstCaseUsd = worst === undefined || worst.unpriced.length > 0 ? null : worst.totalUsd;
    const held = this.hold(runId, request.models, worstCaseUsd);
    this.holds.set(runId, held);
    this.byRequest.set(request, [...(this.byRequest.get(request) ?? []), runId]);
    return held;
  };

  /** Once `request`'s start is over: every hold made for it but `started` (the run it got, if new) is given back. */
  async startEnded(request: RunRequest, started: string | undefined): Promise<void> {
    const ids = this.byRequest.get(request) ?? [];
    this.byRequest.delete(request);
    for (const id of ids) {
      const held = await this.holds.get(id);
      this.holds.delete(id);
      if (id === started || !held?.ok) continue;
      await this.team.release(this.pool, id).catch((error: unknown) => {
        this.logger.warn({ run: id, err: error }, 'a budget hold for a run that never started could not be given back');
      });
    }
  }

  private async hold(runId: string, models: string[], worstCaseUsd: number | null): Promise<Result<void, StartRefusal>> {
    try {
      const reservation = await this.team.reserve(this.pool, { memberId: this.memberId, runId, worstCaseUsd, models });
      if (reservation.ok) return ok(undefined);
      this.logger.info({ run: runId, worstCaseUsd, remainingUsd: reservation.remainingUsd }, 'refused: over the member’s budget');
      return err({ kind: 'budget', message: this.team.refusalMessage(reservation) });
    } catch (error) {
      if (!this.team.isDown(error)) throw error;
      return err({ kind: 'budget', message: DATABASE_DOWN });
    }
  }

  /**
   * The run ended: its actual cost replaces its hold, once however often this is called. One
   * attempt: the workflow's step 'settle' is tried again by the engine while the database is down.
   */
  async settle(runId: string, { status, costUsd, tokens }: { status: string; costUsd: number; tokens: number }): Promise<void> {
    await this.team.settle(this.pool, { runId, costUsd, tokens, status });
  }
}
