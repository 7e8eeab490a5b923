import type { Engine, RunSteps } from 'parallel-llm-mcp-team';
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

/**
 * The engine's run function: the run carried to its end in this process (the one that started
 * it, or the one that took it over when that one died, asking only what is missing), then its
 * cost settled. Unsaved work, not a step of the engine: the run store keeps the run's state as
 * it goes (its record, answers and claim), so taking it over starts here again and picks up from
 * there, and settling is idempotent, so a run settled before its process died changes nothing.
 */
export function driver(membersRuns: (member: Member) => Drivable) {
  return async ({ member, run }: DriveInput, steps: RunSteps): Promise<RunEnd> => {
    const runs = membersRuns(member);
    return steps.unsaved(async (signal) => {
      const end = await runs.drive(run, signal);
      await runs.settle(run, end);
      return end;
    });
  };
}
