import { setMaxListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { SynthesisReserve, budgetForClient } from './budget.js';
import type { Config } from './config.js';
import { createLimiter, type Limiter } from './limiter.js';
import { runPrompt, type ChatCompleter, type RunReport } from './pipeline.js';
import { resultText, structuredResult } from './present.js';
import { ProgressTracker, type ProgressUpdate } from './progress.js';
import { RunStore } from './run-store.js';
import { SERVER_INSTRUCTIONS, TOOL_DESCRIPTION, inputShape, outputShape } from './tool.js';

const SERVER_NAME = 'parallel-llm-server';

export interface ServerDeps {
  config: Config;
  client: ChatCompleter;
  logger: Logger;
  version: string;
  /** Shared by every call in the process; made from the config when not given. */
  limiter?: Limiter;
  /** How often a waiting call reports progress (at most every 10 s is promised). */
  heartbeatMs?: number;
}

export interface ParallelLlmServer {
  server: McpServer;
  /** Settles when no call is running and every cut-off model's answer has arrived and been saved. */
  idle(): Promise<void>;
  /** Aborts every upstream request still running, late candidates included. */
  cleanup(): void;
}

export function createServer(deps: ServerDeps): ParallelLlmServer {
  const { config, logger } = deps;
  const limiter = deps.limiter ?? createLimiter(config.maxConcurrency);
  const store = config.saveOutputs ? new RunStore(config.outputDir) : undefined;
  const shutdown = new AbortController();
  // Calls in flight and late answers still to be saved: what shutdown waits for.
  const busy = new Set<Promise<unknown>>();
  const reserve = new SynthesisReserve();
  const server = new McpServer({ name: SERVER_NAME, version: deps.version }, { instructions: SERVER_INSTRUCTIONS });

  server.registerTool(
    'process_prompt',
    {
      title: 'Ask several LLMs and synthesize the best answer',
      description: TOOL_DESCRIPTION,
      inputSchema: inputShape(config.maxPromptChars),
      outputSchema: outputShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra): Promise<CallToolResult> => {
      const budget = config.budgetMs === undefined ? budgetForClient(server.server.getClientVersion()?.name) : { budgetMs: config.budgetMs, source: 'PARALLEL_LLM_BUDGET_MS' };
      const models = args.models ?? config.models;
      const synthesizerModel = args.synthesizer_model ?? config.synthesizerModels[0]!;
      // The call's own signal: cancelled by the client while the call runs, never after,
      // so that cut-off candidates run on once the result is sent.
      const call = new AbortController();
      const cancel = () => call.abort();
      extra.signal.addEventListener('abort', cancel, { once: true });
      const log = logger.child({ request: extra.requestId });
      log.info({ budgetMs: budget.budgetMs, budgetFrom: budget.source, promptChars: args.prompt.length }, 'process_prompt');
      const progress = progressFor(extra._meta?.progressToken, models, (notification) => extra.sendNotification(notification));
      const heartbeat = progress && setInterval(() => progress.heartbeat(), deps.heartbeatMs ?? 5000);
      try {
        const running = runPrompt(
          { client: deps.client, limiter, store, logger: log, synthesisMaxChars: config.synthesisMaxChars, timeoutMs: config.timeoutMs },
          {
            prompt: args.prompt,
            models,
            synthesizerModel,
            temperature: args.temperature ?? config.temperature,
            maxTokens: args.max_tokens ?? config.maxTokens,
            budgetMs: budget.budgetMs,
            synthesisReserveMs: reserve.reserveMs(synthesizerModel, budget.budgetMs),
          },
          { signal: callSignal(call.signal, shutdown.signal), onEvent: (event) => progress?.onEvent(event) },
        );
        track(busy, running, log);
        const report = await running;
        learnSynthesisTime(reserve, report);
        track(busy, report.lateAnswers, log);
        return toolResult(report, config.synthesisMaxChars);
      } finally {
        progress?.close();
        clearInterval(heartbeat);
        extra.signal.removeEventListener('abort', cancel);
      }
    },
  );

  return {
    server,
    idle: async () => {
      while (busy.size > 0) await Promise.all(busy);
    },
    cleanup: () => shutdown.abort(),
  };
}

/** Aborts on the client's cancel or on shutdown. Each queued model listens to it, so no listener cap. */
function callSignal(cancel: AbortSignal, shutdown: AbortSignal): AbortSignal {
  const signal = AbortSignal.any([cancel, shutdown]);
  setMaxListeners(0, signal);
  return signal;
}

function learnSynthesisTime(reserve: SynthesisReserve, report: RunReport): void {
  const { synthesis } = report;
  if (synthesis.ms === undefined) return;
  if (synthesis.status === 'answered') reserve.record(synthesis.model, synthesis.ms, true);
  else if (synthesis.error?.kind === 'timeout') reserve.record(synthesis.model, synthesis.ms, false);
}

function toolResult(report: RunReport, maxChars: number): CallToolResult {
  return {
    content: [{ type: 'text', text: resultText(report, maxChars) }],
    structuredContent: structuredResult(report),
    isError: report.status === 'failed' || report.status === 'cancelled',
  };
}

type ProgressNotification = {
  method: 'notifications/progress';
  params: ProgressUpdate & { progressToken: string | number };
};

function progressFor(
  token: string | number | undefined,
  models: string[],
  send: (notification: ProgressNotification) => Promise<void>,
): ProgressTracker | undefined {
  if (token === undefined) return undefined;
  return new ProgressTracker(models, (update) => {
    send({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => undefined);
  });
}

function track(set: Set<Promise<unknown>>, promise: Promise<unknown>, log: Logger): void {
  const tracked = promise
    .catch((error: unknown) => log.error({ err: error }, 'a run failed unexpectedly'))
    .finally(() => set.delete(tracked));
  set.add(tracked);
}
