import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Limiter } from './limiter.js';
import type { FaceContext } from './mcp/answer.js';
import { forClient } from './mcp/clients.js';
import { getRun } from './mcp/get-run.js';
import { GET_RUN_DESCRIPTION, PROCESS_PROMPT_DESCRIPTION, SERVER_INSTRUCTIONS, getRunShape, processPromptShape } from './mcp/input-schema.js';
import { outputShape } from './mcp/output-schema.js';
import { processPrompt, runRequest } from './mcp/process-prompt.js';
import { registerRunResources } from './mcp/resources.js';
import { RunTaskStore } from './mcp/tasks.js';
import { toolResult } from './present/result.js';
import type { RunHandle } from './run/handle.js';
import type { ChatCompleter } from './run/orchestrate.js';
import { runsFromConfig } from './run/from-config.js';
import type { Runs } from './run/runs.js';

const SERVER_NAME = 'parallel-llm-server';

export interface ServerDeps {
  config: Config;
  client: ChatCompleter;
  logger: Logger;
  version: string;
  /** Shared by every run in the process; made from the config when not given. */
  limiter?: Limiter;
  /** How often a waiting call reports progress (at most every 10 s is promised). */
  heartbeatMs?: number;
}

export interface ParallelLlmServer {
  server: McpServer;
  runs: Runs;
}

/**
 * The MCP server: `process_prompt` (a plain call, or a task where the client asks for one),
 * `get_run`, and the runs as resources. All of them are faces of the same runs.
 */
export function createServer(deps: ServerDeps): ParallelLlmServer {
  const { config, logger } = deps;
  const runs = runsFromConfig(config, deps.client, logger, deps.limiter);
  let closed = false;
  const context: FaceContext = {
    runs,
    config,
    logger,
    heartbeatMs: deps.heartbeatMs ?? 5000,
    client: () => forClient(server.server.getClientVersion()?.name, config.budgetMs),
    connectionClosed: () => closed,
  };
  const finalResult = async (handle: RunHandle) =>
    toolResult(await handle.view(config.maxAnswerChars), { maxAnswerChars: config.maxAnswerChars, layout: context.client().layout });
  const tasks = new RunTaskStore(runs, finalResult);
  const server = new McpServer(
    { name: SERVER_NAME, version: deps.version },
    {
      instructions: SERVER_INSTRUCTIONS,
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: tasks,
    },
  );
  const closing = server.server.onclose;
  server.server.onclose = () => {
    closed = true;
    closing?.();
  };

  server.experimental.tasks.registerToolTask(
    'process_prompt',
    {
      title: 'Ask several LLMs and synthesize the best answer',
      description: PROCESS_PROMPT_DESCRIPTION,
      inputSchema: processPromptShape(config.maxPromptChars),
      outputSchema: outputShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async (args, extra) => {
        const { handle, joined } = await runs.start(runRequest(args, config), { fresh: args.fresh });
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, context: { handle } });
        if (!tasks.isPlain(task.taskId)) {
          logger.info({ request: extra.requestId, run: handle.id, joined }, 'process_prompt as a task');
          return { task };
        }
        await tasks.storeTaskResult(task.taskId, 'completed', await processPrompt(context, handle, joined, extra));
        return { task: (await tasks.getTask(task.taskId))! };
      },
      getTask: async (_args, extra) => (await tasks.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await tasks.getTaskResult(extra.taskId)) as Awaited<ReturnType<typeof finalResult>>,
    },
  );

  server.registerTool(
    'get_run',
    {
      title: 'Wait for a run and return its result',
      description: GET_RUN_DESCRIPTION,
      inputSchema: getRunShape,
      outputSchema: outputShape,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) => getRun(context, args, extra),
  );

  registerRunResources(server, runs, async (handle) => (await finalResult(handle)).content.map((block) => (block.type === 'text' ? block.text : '')).join('\n'));
  return { server, runs };
}
