import type { Logger } from 'pino';
import { monotonicNow } from '../clock.js';
import { UpstreamError, adviceFor } from '../errors.js';
import { asUpstreamError, fanOut, type Settled } from './fanout.js';
import type { Limiter } from './limiter.js';
import type { CallOptions, ChatRequest, Completion } from '../openrouter/client.js';
import { buildSynthesisPrompt } from './synthesis.js';
import type { ModelError, RunStatus } from './record.js';
import type { RunRequest } from './request.js';
import type { Run } from './run.js';

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
  /** How much of each answer is held in memory; the rest is only in its file. */
  keepChars: number;
}

/**
 * Drives a run to its end: every waiting candidate in parallel under the limiter, then one
 * synthesis of every answer, falling over to the next synthesizer when one fails.
 */
export async function execute(run: Run, deps: RunDeps): Promise<void> {
  const log = deps.logger.child({ run: run.id });
  log.info({ phase: 'fan-out', models: run.request.models, waiting: run.waitingCandidates().length }, 'asking candidates');
  await askCandidates(run, deps, log);
  const status = await synthesize(run, deps, log);
  await run.finish(status);
  const { elapsed_ms, totals } = run.state();
  log.info({ phase: 'done', status, ms: elapsed_ms, cost: totals.cost, tokens: totals.total_tokens }, 'run finished');
}

async function askCandidates(run: Run, deps: RunDeps, log: Logger): Promise<void> {
  const waiting = run.waitingCandidates();
  const models = waiting.map((index) => run.request.models[index]!);
  // Each outcome is recorded once its files are on disk; synthesis waits for every one.
  const recorded: Array<Promise<void>> = [];
  const record = (settled: Settled<Completion>): Promise<void> => {
    const index = waiting[settled.index]!;
    logOutcome(log, settled);
    if (settled.result.ok) return run.answered(index, settled.result.value, settled.ms);
    // Its process is ending: left waiting, for the process that resumes the run to ask again.
    if (run.stopped()?.status === 'interrupted') {
      run.leftWaiting(index);
      return Promise.resolve();
    }
    const { error } = settled.result;
    return run.failed(index, modelError(error), error.kind === 'cancelled' ? undefined : settled.ms, error.reasoning);
  };
  const ask = (model: string, signal: AbortSignal | undefined, i: number) =>
    deps.client.complete(chatFor(run.request, model), { signal, sink: run.answerSink(waiting[i]!, deps.keepChars) });
  const calls = fanOut(models, ask, {
    limiter: deps.limiter,
    signal: run.signal,
    onSettled: (settled) => void recorded.push(record(settled)),
  });
  await Promise.all(calls);
  await Promise.all(recorded);
}

async function synthesize(run: Run, deps: RunDeps, log: Logger): Promise<RunStatus> {
  const stopped = run.stopped();
  if (stopped) {
    run.synthesisSkipped(`the run was stopped: ${stopped.message}`);
    return stopped.status;
  }
  const { answered, inputs } = run.synthesisInputs();
  if (answered === 0) {
    run.synthesisSkipped('no candidate answered, so there was nothing to synthesize');
    return 'failed';
  }
  const prompt = buildSynthesisPrompt(run.request.prompt, inputs, deps.synthesisMaxChars);
  const trimmed = prompt.trims.map((trim) => ({ model: trim.model, kept_chars: trim.keptChars, original_chars: trim.originalChars }));
  const allAnswered = answered === run.request.models.length;
  for (const model of run.request.synthesizers) {
    run.synthesizing(model, prompt.text.length, trimmed);
    log.info({ phase: 'synthesis', model, candidates: inputs.length, promptChars: prompt.text.length }, 'synthesizing');
    let started = monotonicNow();
    try {
      const completion = await deps.limiter.run(
        () => {
          started = monotonicNow();
          return deps.client.complete({ ...chatFor(run.request, model), prompt: prompt.text }, { signal: run.signal });
        },
        // Synthesis goes to the front of the queue: a run near its end must not wait behind new ones.
        { signal: run.signal, urgent: true },
      );
      const ms = Math.round(monotonicNow() - started);
      log.info({ phase: 'synthesis', model, ms, tokens: completion.usage?.total_tokens, cost: completion.usage?.cost }, 'synthesis done');
      await run.synthesisAttempt({ model, status: 'answered', ms, chars: completion.content.length, ...(completion.usage ? { usage: completion.usage } : {}) }, completion);
      return allAnswered ? 'complete' : 'partial';
    } catch (caught) {
      const stoppedNow = run.stopped();
      if (stoppedNow) {
        run.synthesisSkipped(`the run was stopped: ${stoppedNow.message}`);
        return stoppedNow.status;
      }
      const error = modelError(asUpstreamError(caught, run.signal));
      log.warn({ phase: 'synthesis', model, error }, `synthesis failed: ${error.message}`);
      await run.synthesisAttempt({ model, status: 'failed', ms: Math.round(monotonicNow() - started), error });
    }
  }
  return 'candidates_only';
}

function chatFor(request: RunRequest, model: string): ChatRequest {
  return { model, prompt: request.prompt, temperature: request.temperature, maxTokens: request.maxTokens };
}

export function modelError(error: UpstreamError): ModelError {
  const data = error.toJSON();
  const advice = adviceFor(data);
  return advice ? { ...data, advice } : data;
}

function logOutcome(log: Logger, settled: Settled<Completion>): void {
  const fields = { phase: 'candidate', model: settled.model, ms: settled.ms };
  if (settled.result.ok) {
    const { usage, content } = settled.result.value;
    log.info({ ...fields, outcome: 'answered', chars: content.length, tokens: usage?.total_tokens, cost: usage?.cost }, 'candidate answered');
  } else {
    const error = settled.result.error;
    log.warn({ ...fields, outcome: 'failed', kind: error.kind, status: error.status }, `candidate failed: ${error.message}`);
  }
}
