import type { Engine, RunSteps, StepRetries } from 'parallel-llm-mcp-team';
import type { RunStatus } from '../run/record.js';
import type { Member } from '../team/run-storage.js';

/** A team run's workflow: whose run, and which. */
export interface DriveInput {
  member: Member;
  run: string;
}

/** How the run ended, as its budget is settled. */
export interface RunEnd {
  status: RunStatus;
  costUsd: number;
  tokens: number;
}

export type TeamEngine = Engine<DriveInput, RunEnd>;

/** What a member's runs offer the workflow: carrying a run to its end here, and settling its cost. */
export interface Drivable {
  drive(run: string, signal: AbortSignal): Promise<RunEnd>;
  settle(run: string, end: RunEnd): Promise<void>;
}

/** The settlement's attempts while the database does not answer: a second after the first, each pause twice the last (about eight minutes in all). */
const SETTLE_RETRIES = { maxAttempts: 10, intervalSeconds: 1, backoffRate: 2 } as const;

/**
 * The engine's run function: the run carried to its end in this process (the one that started it,
 * or the one that took it over when that one died, asking only what is missing), then its cost
 * settled once. The run is unsaved work, not a step: the run store keeps its state as it goes (its
 * record, answers and claim), so a takeover starts it here again and picks up from there. The
 * settlement is a step, tried again by the engine while the database does not answer (`isDown`).
 */
export function driver(membersRuns: (member: Member) => Drivable, isDown: (error: unknown) => boolean) {
  const settleRetries: StepRetries = { ...SETTLE_RETRIES, retryIf: isDown };
  return async ({ member, run }: DriveInput, steps: RunSteps): Promise<RunEnd> => {
    const runs = membersRuns(member);
    const end = await steps.unsaved((signal) => runs.drive(run, signal));
    await steps.step(
      'settle',
      async () => {
        await runs.settle(run, end);
        return null;
      },
      settleRetries,
    );
    return end;
  };
}
