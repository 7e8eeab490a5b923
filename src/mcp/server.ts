import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { resultView, type ToolContext } from './answer.js';
import { forClient } from './clients.js';
import { registerRunApp } from './app.js';
import { getRun } from './get-run.js';
import {
  GET_RUN_DESCRIPTION,
  PROCESS_PROMPT_DESCRIPTION,
  SERVER_INSTRUCTIONS,
  SERVER_NAME,
  getRunShape,
  processPromptShape,
} from './input-schema.js';
import { createProcessPromptTask } from './process-prompt.js';
import { registerRunResources } from './resources.js';
import { Session, type SessionMemory } from './session.js';
import { PlainCallAdapter } from './plain-calls.js';
import { RunTaskStore } from './tasks.js';
import type { TaskRecords } from './task-records.js';
import { outputShape } from '../present/output-schema.js';
import { toolResult, type Layout } from '../present/result.js';
import type { RunHandle } from '../run/handle.js';
import type { RunService } from '../run/service.js';
import type { RunStorage } from '../store/store.js';

export interface ServerDeps {
  config: Config;
  /** The runs: the run host's, reached over its socket, or this process's own. */
  service: RunService;
  /** Where the service keeps the runs' texts, which the run page reads (undefined: nowhere); asked for only then, so start-up loads no store. */
  store: () => Promise<RunStorage | undefined>;
  logger: Logger;
  version: string;
  /** How often a waiting call reports progress (at most every 10 s is promised). */
  heartbeatMs?: number;
  /** How often a task's client is told to poll it. */
  taskPollMs?: number;
  /** Where the tasks are kept (by default in this server's memory). */
  tasks?: TaskRecords;
  /** What the session learned before this server (over HTTP, a server serves one request), and who keeps what it learns. */
  session?: SessionMemory;
}

/**
 * The MCP server: `process_prompt` (a plain call, or a task where the client asks for one),
 * `get_run`, and the runs as resources. All of them read and start the same runs.
 */
export function createServer(deps: ServerDeps): McpServer {
  const { config, logger, service } = deps;
  const session = new Session(deps.session);
  let closed = false;
  const context: ToolContext = {
    service,
    config,
    logger,
    session,
    heartbeatMs: deps.heartbeatMs ?? 5000,
    client: () => {
      const choice = forClient(server.server.getClientVersion()?.name, config.budgetMs);
      return { ...choice, budgetMs: session.budget(choice.budgetMs) };
    },
    connectionClosed: () => closed,
  };
  const resultOf = async (handle: RunHandle, layout: Layout) =>
    toolResult(await resultView(handle, config.maxAnswerChars), { maxAnswerChars: config.maxAnswerChars, layout });
  const tasks = new PlainCallAdapter(
    new RunTaskStore(service, (handle) => resultOf(handle, context.client().layout), deps.taskPollMs, deps.tasks),
  );
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

  const processPrompt = server.experimental.tasks.registerToolTask(
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
      getTaskResult: async (_args, extra) => (await tasks.getTaskResult(extra.taskId)) as Awaited<ReturnType<typeof resultOf>>,
    },
  );

  const getRunTool = server.registerTool(
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
  registerRunResources(server, service, async (handle) =>
    (await resultOf(handle, 'content')).content.map((block) => (block.type === 'text' ? block.text : '')).join('\n'),
  );
  registerRunApp(server, { service, store: deps.store }, config, [processPrompt, getRunTool]);
  return server;
}
