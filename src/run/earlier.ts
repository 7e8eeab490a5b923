import { err, ok, type Result } from '../result.js';
import { isRunId } from '../store/store.js';
import type { EarlierRun } from './follow-up.js';
import { STATUS, type RunRecord, type RunState } from './record.js';
import type { Run } from './run.js';
import type { StoredRun, StoredRuns } from './stored.js';

/** Memory serves when saving is off or the disk failed. */
export interface EarlierSources {
  stored: StoredRuns | undefined;
  live(id: string): Run | undefined;
}

/** Only a run that ended with answers can be followed up; any other is refused with what to do. */
export async function readEarlierRun(id: string, sources: EarlierSources, maxChars: number): Promise<Result<EarlierRun, string>> {
  if (!isRunId(id))
    return err(
      `follow_up_of "${id.slice(0, 80)}" is not a run id: give the run_id of a finished run (it looks like 2026-11-23T16-15-00.123Z_9f3a1c2e)`,
    );
  const opened = await sources.stored?.open(id);
  if (opened?.ok) {
    const record = opened.value.effective();
    return whyNot(record) ?? ok(await fromFolder(opened.value, record, maxChars));
  }
  const live = sources.live(id);
  if (live) return whyNot(live.state()) ?? ok(fromMemory(live));
  if (opened && opened.error.kind !== 'not_found') return err(`run ${id} cannot be followed up: ${opened.error.message}`);
  return err(`there is no run ${id} to follow up: follow_up_of takes the run_id of a finished run, from a process_prompt result`);
}

function whyNot(run: Pick<RunState, 'run_id' | 'status'>): Result<never, string> | undefined {
  // A finished run with an answer to build on: complete, partial, or the candidates alone.
  if (STATUS[run.status].settled && STATUS[run.status].reusable) return undefined;
  const id = run.run_id;
  switch (run.status) {
    case 'running':
      return err(`run ${id} is still running: wait for it to finish (get_run), then ask the follow-up`);
    case 'failed':
      return err(`run ${id} failed: no model answered, so there is nothing to follow up`);
    default:
      return err(
        `run ${id} was ${run.status} before it finished: call process_prompt again with its input to resume it, then ask the follow-up`,
      );
  }
}

async function fromFolder(stored: StoredRun, record: RunRecord, maxChars: number): Promise<EarlierRun> {
  const read = async (file: string | undefined) => (file ? stored.readText(file, maxChars) : undefined);
  const answers = await Promise.all(
    record.candidates.map((candidate) => read(candidate.status === 'answered' ? candidate.file : undefined)),
  );
  return { prompt: record.prompt, models: record.settings.models, answers, finalAnswer: await read(record.synthesis.file) };
}

/** The candidates' answers are let go once there is a final answer. */
function fromMemory(run: Run): EarlierRun {
  const { answer, answers } = run.texts();
  return {
    prompt: run.request.prompt,
    models: run.request.models,
    answers: run.request.models.map((_, i) => answers.get(i)),
    finalAnswer: answer,
  };
}
