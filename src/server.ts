import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Limiter } from './run/limiter.js';
import type { FaceContext } from './mcp/answer.js';
import { forClient } from './mcp/clients.js';
import { getRun } from './mcp/get-run.js';
import { GET_RUN_DESCRIPTION, PROCESS_PROMPT_DESCRIPTION, SERVER_INSTRUCTIONS, getRunShape, processPromptShape } from './mcp/input-schema.js';
import { outputShape } from './present/output-schema.js';
import { createProcessPromptTask } from './mcp/process-prompt.js';
import { registerRunResources } from './mcp/resources.js';
import { RunTaskStore } from './mcp/tasks.js';
import { toolResult, type Layout } from './present/result.js';
import type { RunHandle } from './run/handle.js';
import type { ChatCompleter } from './run/orchestrate.js';
import { runsFromConfig } from './run/from-config.js';
import type { Runs } from './run/runs.js';

export const SERVER_NAME = 'parallel-llm-server';

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
  const resultOf = async (handle: RunHandle, layout: Layout) => toolResult(await handle.view(config.maxAnswerChars), { maxAnswerChars: config.maxAnswerChars, layout });
  const finalResult = (handle: RunHandle) => resultOf(handle, context.client().layout);
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
      createTask: (args, extra) => createProcessPromptTask(context, tasks, args, extra),
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

  // A resource is read as text alone: the answers go into it, whatever side the client's model reads.
  registerRunResources(server, runs, async (handle) => (await resultOf(handle, 'content')).content.map((block) => (block.type === 'text' ? block.text : '')).join('\n'));
  return { server, runs };
}
