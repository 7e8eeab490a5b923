import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { Deadline, monotonicNow } from '../clock.js';
import type { Config } from '../config/config.js';
import { toolResult } from '../present/result.js';
import { cutAndUnsaved, WHOLE_CHARS } from '../present/shown.js';
import type { RunHandle, WaitOptions } from '../run/handle.js';
import type { RunState } from '../run/record.js';
import type { Joined, RunService, RunView } from '../run/service.js';
import { isClientTimeout } from './cancel-reasons.js';
import type { ClientChoice } from './clients.js';
import { ProgressTracker } from './progress.js';
import type { Session } from './session.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the tools share: the runs, the settings, and what the client is. */
export interface ToolContext {
  service: RunService;
  config: Config;
  logger: Logger;
  /** How often a waiting call reports progress (at most every 10 s is promised). */
  heartbeatMs: number;
  /** The client's budget (below the limit it has shown, once it has) and result layout. */
  client(): ClientChoice;
  session: Session;
  /** True once the client's connection is gone: handlers are aborted then, but runs go on. */
  connectionClosed(): boolean;
}

/** Time kept back from the budget to read the result and send it. */
const replyMarginMs = (budgetMs: number) => Math.min(1000, Math.round(budgetMs * 0.05));

export interface Call {
  budgetMs: number;
  joined?: Joined;
  /** What the result asks the next get_run to pass as `poll`: one more each time, so that no two calls in a row are the same. */
  poll: number;
  /** When the call arrived (monotonic ms): starting its run, a run host's start included, is part of its budget. */
  arrivedAt?: number;
}

/**
 * Waits on a run within the call's budget, then answers with the run as it stands: final, or
 * `running` with what has arrived. A user's stop cancels the run; the client's own timeout
 * or its going away ends only the call.
 */
export async function answerWhenReady(context: ToolContext, handle: RunHandle, extra: Extra, call: Call): Promise<CallToolResult> {
  const spentMs = call.arrivedAt === undefined ? 0 : monotonicNow() - call.arrivedAt;
  const deadline = Deadline.after(Math.max(0, call.budgetMs - replyMarginMs(call.budgetMs) - spentMs));
  const progress = progressFor(extra);
  const detach = stopOnUserCancel(context, handle, extra);
  try {
    const waiting = {
      deadline,
      signal: extra.signal,
      heartbeatMs: context.heartbeatMs,
      onUpdate: progress && ((state: RunState) => progress.update(state)),
    };
    const view = await resultView(handle, context.config.maxAnswerChars, waiting);
    const notice = context.session.once(context.service.notice);
    return toolResult(view, { maxAnswerChars: context.config.maxAnswerChars, layout: context.client().layout, ...call, notice });
  } finally {
    progress?.close();
    detach();
  }
}

/**
 * The run's view for a result of `maxChars` (after the wait, when given): read again whole when
 * the disk refused a text it cut, since the result is then the only place that text is.
 */
export async function resultView(handle: RunHandle, maxChars: number, wait?: WaitOptions): Promise<RunView> {
  const view = wait ? await handle.waitForView(wait, maxChars) : await handle.view(maxChars);
  return cutAndUnsaved(view) ? handle.view(WHOLE_CHARS) : view;
}

/**
 * A user's stop of the call stops its run, even one that came while the run was being
 * started; the client's own timeout teaches the session the client's limit, and neither it nor
 * the client going away stops the run. Returns how to stop listening.
 */
export function stopOnUserCancel(context: ToolContext, handle: RunHandle, extra: Extra): () => void {
  const startedAt = monotonicNow();
  const onAbort = () => {
    const reason = String(extra.signal.reason);
    if (isClientTimeout(extra.signal.reason)) {
      // Learnt at once: the client's next call may already be on its way.
      context.session.timedOutAfter(monotonicNow() - startedAt);
      context.logger.info({ run: handle.id, reason }, 'the client timed out: the call ends, the run goes on');
      return;
    }
    // The SDK aborts every handler before it reports the connection closed: look once it has.
    setImmediate(() => {
      if (context.connectionClosed()) return;
      void handle.cancel('the client cancelled the call').then((outcome) => {
        context.logger.info(
          { run: handle.id, reason, ...outcome },
          outcome.stopped ? 'the client cancelled: the run is stopped' : 'the client cancelled, but the run could not be stopped',
        );
      });
    });
  };
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
