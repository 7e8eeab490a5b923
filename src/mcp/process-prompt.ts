import type { CreateTaskRequestHandlerExtra as CreateTaskExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type * as z from 'zod';
import { monotonicNow } from '../clock.js';
import { firstLine, refusalResult } from '../present/result.js';
import { RunHandle } from '../run/handle.js';
import type { StartRefusal } from '../run/start-refusal.js';
import { effectiveCeiling, runRequest } from './run-request.js';
import { answerWhenReady, stopOnUserCancel, type ToolContext } from './answer.js';
import type { processPromptShape } from './input-schema.js';
import type { PlainCallAdapter } from './plain-calls.js';

export type ProcessPromptArgs = z.infer<z.ZodObject<ReturnType<typeof processPromptShape>>>;

/**
 * `process_prompt`. Registered as a task tool, so that a client that asks for a task gets one
 * at once (named after its run); any other call is a plain call (see PlainCallAdapter): it
 * waits for the run within the client's budget, and hands its result over to the SDK.
 */
export async function createProcessPromptTask(
  context: ToolContext,
  tasks: PlainCallAdapter,
  args: ProcessPromptArgs,
  extra: CreateTaskExtra,
): Promise<CreateTaskResult> {
  const { config } = context;
  const arrivedAt = monotonicNow();
  const started = await context.service.start(runRequest(args.prompt, args, config), {
    fresh: args.fresh,
    maxCostUsd: effectiveCeiling(args.max_cost_usd, config.maxCostUsd),
  });
  if ('refused' in started) return refusedTask(context, tasks, started.refused, extra);
  const { id, joined } = started;
  const handle = new RunHandle(id, context.service);
  const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, context: { runId: id } });
  if (!tasks.isPlain(task.taskId)) {
    context.logger.info({ request: extra.requestId, run: id, joined }, 'process_prompt as a task');
    // A stop that came while the run was being started: nobody else would hear it.
    stopOnUserCancel(context, handle, extra)();
    return { task };
  }
  try {
    const { budgetMs, source } = context.client();
    context.logger.info({ request: extra.requestId, run: id, joined, budgetMs, budgetFrom: source }, 'process_prompt');
    await tasks.storeTaskResult(
      task.taskId,
      'completed',
      await answerWhenReady(context, handle, extra, { budgetMs, joined, poll: 1, arrivedAt }),
    );
    return { task: (await tasks.getTask(task.taskId))! };
  } catch (error) {
    tasks.forget(task.taskId);
    throw error;
  }
}

/** A call refused before any run: its task fails at once, with the refusal as its error result. */
async function refusedTask(
  context: ToolContext,
  tasks: PlainCallAdapter,
  refusal: StartRefusal,
  extra: CreateTaskExtra,
): Promise<CreateTaskResult> {
  context.logger.info({ request: extra.requestId, refused: refusal.kind }, 'process_prompt refused before any request');
  const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl });
  const result = refusalResult(refusal);
  await tasks.storeTaskResult(task.taskId, 'failed', result);
  // A task's client reads why in tasks/get; its result (tasks/result) is the whole refusal.
  await tasks.updateTaskStatus(task.taskId, 'failed', firstLine(result));
  return { task: (await tasks.getTask(task.taskId))! };
}
