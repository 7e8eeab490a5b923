import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { Deadline } from '../clock.js';
import type { Config } from '../config.js';
import { toolResult } from '../present/result.js';
import type { RunHandle } from '../run/handle.js';
import type { Joined, Runs } from '../run/runs.js';
import type { ClientChoice } from './clients.js';
import { ProgressTracker } from './progress.js';
import { isClientTimeout, waitForRun } from './wait.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the tools share: the runs, the settings, and what the client is. */
export interface FaceContext {
  runs: Runs;
  config: Config;
  logger: Logger;
  /** How often a waiting call reports progress (at most every 10 s is promised). */
  heartbeatMs: number;
  /** The client's budget and result layout, known once it has said who it is. */
  client(): ClientChoice;
  /** True once the client's connection is gone: handlers are aborted then, but runs go on. */
  connectionClosed(): boolean;
}

/** Time kept back from the budget to read the result and send it. */
const replyMarginMs = (budgetMs: number) => Math.min(1000, Math.round(budgetMs * 0.05));

/**
 * Waits on a run within the call's budget, then answers with the run as it stands: final, or
 * `running` with what has arrived. A user's stop cancels the run; the client's own timeout
 * or its going away ends only the call.
 */
export async function answerWhenReady(
  context: FaceContext,
  handle: RunHandle,
  extra: Extra,
  call: { budgetMs: number; joined?: Joined },
): Promise<CallToolResult> {
  const choice = context.client();
  const deadline = Deadline.after(Math.max(0, call.budgetMs - replyMarginMs(call.budgetMs)));
  const progress = progressFor(extra);
  const detach = stopOnUserCancel(context, handle, extra);
  try {
    await waitForRun(handle, { deadline, signal: extra.signal, progress, heartbeatMs: context.heartbeatMs });
    const view = await handle.view(context.config.maxAnswerChars);
    return toolResult(view, { maxAnswerChars: context.config.maxAnswerChars, layout: choice.layout, joined: call.joined, budgetMs: call.budgetMs });
  } finally {
    progress?.close();
    detach();
  }
}

/**
 * A user's stop of the call stops its run, even one that came while the run was being
 * started; the client's own timeout or its going away does not. Returns how to stop listening.
 */
export function stopOnUserCancel(context: FaceContext, handle: RunHandle, extra: Extra): () => void {
  const onAbort = () =>
    // The SDK aborts every handler before it reports the connection closed: look once it has.
    setImmediate(() => {
      if (context.connectionClosed() || isClientTimeout(extra.signal.reason)) return;
      const stopped = handle.cancel('the client cancelled the call');
      const why = stopped ? 'the client cancelled: stopping the run' : 'the client cancelled, but another process runs this run: it goes on';
      context.logger.info({ run: handle.id, reason: String(extra.signal.reason) }, why);
    });
  if (extra.signal.aborted) onAbort();
  else extra.signal.addEventListener('abort', onAbort, { once: true });
  return () => extra.signal.removeEventListener('abort', onAbort);
}

function progressFor(extra: Extra): ProgressTracker | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return new ProgressTracker((update) => {
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } }).catch(() => undefined);
  });
}
