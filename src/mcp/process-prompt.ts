import type { CreateTaskRequestHandlerExtra as CreateTaskExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { RunHandle } from '../run/handle.js';
import type { RunRequest } from '../run/request.js';
import { answerWhenReady, stopOnUserCancel, type FaceContext } from './answer.js';
import type { processPromptShape } from './input-schema.js';
import type { RunTaskStore } from './tasks.js';

export type ProcessPromptArgs = z.infer<z.ZodObject<ReturnType<typeof processPromptShape>>>;

/**
 * `process_prompt`. Registered as a task tool, so that a client that asks for a task gets
 * one at once (named after its run); for any other call the SDK makes a task of its own,
 * which the store marks plain: the call then waits for the run within the client's budget,
 * and the result is stored for the SDK to return.
 */
export async function createProcessPromptTask(context: FaceContext, tasks: RunTaskStore, args: ProcessPromptArgs, extra: CreateTaskExtra): Promise<CreateTaskResult> {
  const { id, joined } = await context.service.start(runRequest(args, context.config), { fresh: args.fresh });
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
    await tasks.storeTaskResult(task.taskId, 'completed', await answerWhenReady(context, handle, extra, { budgetMs, joined, poll: 1 }));
    return { task: (await tasks.getTask(task.taskId))! };
  } catch (error) {
    tasks.forget(task.taskId);
    throw error;
  }
}

export function runRequest(args: ProcessPromptArgs, config: Config): RunRequest {
  const synthesizers = args.synthesizer_model === undefined ? config.synthesizerModels : [args.synthesizer_model].flat();
  return {
    prompt: args.prompt,
    models: args.models ?? config.models,
    synthesizers,
    temperature: args.temperature ?? config.temperature,
    maxTokens: args.max_tokens ?? config.maxTokens,
  };
}
