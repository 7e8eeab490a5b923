import type { Deadline } from '../clock.js';
import type { RunHandle } from '../run/handle.js';
import type { RunRecord } from '../run/record.js';
import type { ProgressTracker } from './progress.js';

export interface WaitOptions {
  deadline: Deadline;
  /** The call's own signal: a wait ends when the client gives up on the call. */
  signal: AbortSignal;
  progress: ProgressTracker | undefined;
  /** Longest silence between progress notifications (SPEC §8: at most 10 s). */
  heartbeatMs: number;
}

/**
 * Waits on a run until it is no longer running, the deadline passes or the call is
 * abandoned, sending progress at each step and a heartbeat between steps.
 */
export async function waitForRun(handle: RunHandle, options: WaitOptions): Promise<Readonly<RunRecord>> {
  const { deadline, signal, progress } = options;
  let record = await handle.current();
  const abandoned = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  while (record.status === 'running' && !signal.aborted && deadline.msLeft() > 0) {
    progress?.update(record);
    await Promise.race([handle.nextChange(Math.min(deadline.msLeft(), options.heartbeatMs)), abandoned]);
    record = await handle.current();
  }
  return record;
}

/**
 * Whether a cancellation says the client's own time limit passed. The MCP SDK sends
 * "McpError: MCP error -32001: Request timed out"; other clients "timed out", "timed out after
 * 60.0s". Such a cancellation ends the call, not the run; any other is a user's stop.
 */
export function isClientTimeout(reason: unknown): boolean {
  const text = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason ?? '');
  return /timed? ?out|timeout|-32001/i.test(text);
}
