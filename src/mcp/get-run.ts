import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRunId } from '../store/run-store.js';
import { answerWhenReady, type Extra, type FaceContext } from './answer.js';

/** `get_run`: wait for a run (this process's, another's, or one from before a restart) within the budget. */
export async function getRun(context: FaceContext, args: { run_id: string; wait_seconds?: number | undefined }, extra: Extra): Promise<CallToolResult> {
  const id = args.run_id.trim();
  if (!isRunId(id)) {
    return refusal(`"${id.slice(0, 80)}" is not a run id. A run id looks like 2026-11-23T16-15-00.123Z_9f3a1c2e: use the run_id from a process_prompt result.`);
  }
  const handle = await context.runs.find(id);
  if (!handle) {
    const where = context.config.saveOutputs ? `there is no such run in ${context.config.outputDir}` : 'runs are not saved (PARALLEL_LLM_SAVE_OUTPUTS=false), so only this process\'s runs of the last 10 minutes can be read';
    return refusal(`No run ${id}: ${where}. Start one with process_prompt.`);
  }
  const { budgetMs } = context.client();
  const waitMs = args.wait_seconds === undefined ? budgetMs : Math.min(budgetMs, args.wait_seconds * 1000);
  return answerWhenReady(context, handle, extra, { budgetMs: waitMs });
}

const refusal = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
