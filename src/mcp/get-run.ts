import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunHandle } from '../run/handle.js';
import { answerWhenReady, type Extra, type ToolContext } from './answer.js';

export interface GetRunArgs {
  run_id: string;
  wait_seconds?: number | undefined;
  poll?: number | undefined;
}

/** `get_run`: wait for a run (the run host's, another process's, or one from before a restart) within the budget. */
export async function getRun(context: ToolContext, args: GetRunArgs, extra: Extra): Promise<CallToolResult> {
  const id = args.run_id.trim();
  const found = await context.service.watch(id, { waitMs: 0 });
  if (!found.ok)
    return refusal(
      found.error.kind === 'not_found' ? `No run ${id}: ${found.error.message}. Start one with process_prompt.` : found.error.message,
    );
  const { budgetMs } = context.client();
  const waitMs = args.wait_seconds === undefined ? budgetMs : Math.min(budgetMs, args.wait_seconds * 1000);
  return answerWhenReady(context, new RunHandle(id, context.service), extra, { budgetMs: waitMs, poll: (args.poll ?? 0) + 1 });
}

const refusal = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
