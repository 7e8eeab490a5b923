import type { Logger } from 'pino';
import { type UpstreamError, adviceFor } from '../../errors.js';
import type { CallOptions, ChatRequest, Completion } from '../../openrouter/client.js';
import type { Text } from '../../openrouter/text-parts.js';
import type { Limiter } from '../limiter.js';
import type { ModelError, RunStatus } from '../record.js';
import type { Run } from '../run.js';
import type { IndexedAnswer } from '../strategies/anonymise.js';

/** What a run needs from the OpenRouter client. */
export interface ChatCompleter {
  complete(chat: ChatRequest, options?: CallOptions): Promise<Completion>;
}

export interface RunDeps {
  client: ChatCompleter;
  /** Process-wide: every run's upstream requests share it. */
  limiter: Limiter;
  logger: Logger;
  synthesisMaxChars: number;
  /** How much of all the answers of a run is held in memory, shared among them; the rest is only in their files. */
  keepChars: number;
}

/** What the strategy's steps read once every candidate has answered or failed. */
export interface StepContext {
  run: Run;
  deps: RunDeps;
  log: Logger;
  /** The problem as the steps state it: the prompt, or for a follow-up the earlier exchange and then the prompt. */
  problem: string;
  /** The candidates' answers, by 0-based candidate index; never empty. */
  answers: IndexedAnswer[];
  /** The reasoning of candidates that gave no answer, which only a synthesis reads. */
  reasonings: IndexedAnswer[];
}

/** One request of the run to `model`: its settings, its reasoning effort, and `prompt` as the one user message. */
export function stepChat(run: Run, model: string, prompt: Text): ChatRequest {
  const { temperature, maxTokens, reasoningEffort } = run.request;
  return { model, prompt, temperature, maxTokens, ...(reasoningEffort === undefined ? {} : { reasoningEffort }) };
}

/** A stopped run's status, its last step skipped with why; undefined while it is not stopped. */
export function stoppedStatus(run: Run): RunStatus | undefined {
  const stopped = run.stopped();
  if (!stopped) return undefined;
  run.synthesisSkipped(`the run was stopped: ${stopped.message}`);
  return stopped.status;
}

export function modelError(error: UpstreamError): ModelError {
  const data = error.toJSON();
  const advice = adviceFor(data);
  return advice ? { ...data, advice } : data;
}
