import type { Logger } from 'pino';
import { type UpstreamError, adviceFor } from '../../errors.js';
import type { CallOptions, ChatRequest, Completion } from '../../openrouter/client.js';
import type { Text } from '../../openrouter/text-parts.js';
import type { Limiter } from '../limiter.js';
import type { ModelError, RunStatus } from '../record.js';
import type { Run } from '../run.js';
import type { IndexedAnswer } from '../../prompts/anonymise.js';

interface ChatCompleter {
  complete(chat: ChatRequest, options?: CallOptions): Promise<Completion>;
}

export interface RunDeps {
  client: ChatCompleter;
  limiter: Limiter;
  logger: Logger;
  synthesisMaxChars: number;
  /** Shared among a run's answers; the rest is only in their files. */
  keepChars: number;
  /** Whether a model takes structured output (a JSON schema as `response_format`); without it, no model does. */
  structuredOutput?: (model: string) => Promise<boolean>;
}

export interface StepContext {
  run: Run;
  deps: RunDeps;
  log: Logger;
  /** For a follow-up, the earlier exchange and then the prompt. */
  problem: string;
  /** Never empty. */
  answers: IndexedAnswer[];
  /** The reasoning of candidates that gave no answer, which only a synthesis reads. */
  reasonings: IndexedAnswer[];
}

export function stepChat(run: Run, model: string, prompt: Text): ChatRequest {
  const { temperature, maxTokens, reasoningEffort } = run.request;
  return { model, prompt, temperature, maxTokens, ...(reasoningEffort === undefined ? {} : { reasoningEffort }) };
}

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
