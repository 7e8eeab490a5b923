import type { Engine, RunSteps } from 'parallel-llm-mcp-team';
import type { RunRecord, RunStatus } from '../run/record.js';
import type { RunRequest } from '../run/request.js';
import type { Member } from './member-runs.js';

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
 * The engine's run function: step 'run' carries the run to its end in this process (the one
 * that started it, or the one that took it over when that one died, asking only what is
 * missing); step 'settle' then settles its cost once, wherever the workflow ends.
 */
export function driver(membersRuns: (member: Member) => Drivable) {
  return async ({ member, run }: DriveInput, steps: RunSteps): Promise<RunEnd> => {
    const runs = membersRuns(member);
    const end = await steps.step('run', (signal) => runs.drive(run, signal));
    await steps.step('settle', async () => {
      await runs.settle(run, end);
      return null;
    });
    return end;
  };
}

/** The request a run's record was made from: the same key, so a start of it finds the run again. */
export function requestOf(record: RunRecord): RunRequest {
  const { settings } = record;
  return {
    prompt: record.prompt,
    models: settings.models,
    synthesizers: settings.synthesizer_models,
    temperature: settings.temperature,
    maxTokens: settings.max_tokens,
    strategy: settings.strategy ?? 'synthesize',
    ...(settings.reasoning_effort === undefined ? {} : { reasoningEffort: settings.reasoning_effort }),
    ...(settings.agreement === false ? { agreement: false as const } : {}),
    ...(record.follow_up_of === undefined ? {} : { followUpOf: record.follow_up_of }),
  };
}
