import type { Logger } from 'pino';
import { fanOut, type Settled } from './fanout.js';
import type { ChatRequest, Completion } from '../openrouter/client.js';
import { followUpMessages, followUpProblem, ownEarlierAnswers } from './follow-up.js';
import type { RunStatus } from './record.js';
import type { Run } from './run.js';
import { modelError, stepChat, stoppedStatus, type RunDeps, type StepContext } from './steps/context.js';
import { councilStep } from './steps/council.js';
import { judgeStep, synthesizeStep } from './steps/final.js';

/** Drives a run to its end: every waiting candidate in parallel, then the strategy's last steps (steps/). */
export async function execute(run: Run, deps: RunDeps): Promise<void> {
  const log = deps.logger.child({ run: run.id });
  log.info(
    { phase: 'fan-out', models: run.request.models, strategy: run.request.strategy, waiting: run.waitingCandidates().length },
    'asking candidates',
  );
  await askCandidates(run, deps, log);
  const status = await lastSteps(run, deps, log);
  await run.finish(status);
  const { elapsed_ms, totals } = run.state();
  log.info({ phase: 'done', status, ms: elapsed_ms, cost: totals.cost, tokens: totals.total_tokens }, 'run finished');
}

async function askCandidates(run: Run, deps: RunDeps, log: Logger): Promise<void> {
  const waiting = run.waitingCandidates();
  const models = waiting.map((index) => run.request.models[index]!);
  const recorded: Array<Promise<void>> = [];
  const record = (settled: Settled<Completion>): Promise<void> => {
    const index = waiting[settled.index]!;
    logOutcome(log, settled);
    if (settled.result.ok) return run.answered(index, settled.result.value, settled.ms);
    // Left waiting, for the process that resumes the run to ask again.
    if (run.stopped()?.status === 'interrupted') {
      run.leftWaiting(index);
      return Promise.resolve();
    }
    const { error } = settled.result;
    return run.failed(index, modelError(error), error.kind === 'cancelled' ? undefined : settled.ms, error.reasoning);
  };
  const chats = candidateChats(run);
  const keepChars = keptOfEach(deps.keepChars, run.request.models.length);
  const ask = (_model: string, signal: AbortSignal | undefined, i: number) =>
    deps.client.complete(chats[waiting[i]!]!, { signal, sink: run.answerSink(waiting[i]!, keepChars) });
  const calls = fanOut(models, ask, {
    limiter: deps.limiter,
    signal: run.signal,
    onSettled: (settled) => void recorded.push(record(settled)),
  });
  await Promise.all(calls);
  await Promise.all(recorded);
}

const MIN_KEPT_CHARS = 16_384;

/** The synthesis and a result share their budgets among the answers, so a share is all each needs held in memory. */
function keptOfEach(keepChars: number, models: number): number {
  return Math.max(MIN_KEPT_CHARS, Math.ceil(keepChars / models));
}

async function lastSteps(run: Run, deps: RunDeps, log: Logger): Promise<RunStatus> {
  const stopped = stoppedStatus(run);
  if (stopped) return stopped;
  const problem = run.earlier ? followUpProblem(run.earlier, run.request.prompt) : run.request.prompt;
  const inputs = run.synthesisInputs();
  const { answers, reasonings } = inputs;
  if (answers.length === 0) {
    run.synthesisSkipped('no candidate answered, so there was nothing to synthesize');
    return 'failed';
  }
  const context: StepContext = { run, deps, log, answers, reasonings, problem };
  switch (run.request.strategy) {
    case 'judge':
      return judgeStep(context);
    case 'council':
      return councilStep(context);
    case 'synthesize':
      return synthesizeStep(context);
  }
}

function candidateChats(run: Run): ChatRequest[] {
  const { request, earlier } = run;
  const own = earlier && ownEarlierAnswers(earlier, request.models);
  return request.models.map((model, i) => ({
    ...stepChat(run, model, request.prompt),
    ...(earlier && own ? { messages: followUpMessages(earlier, own[i], request.prompt) } : {}),
  }));
}

function logOutcome(log: Logger, settled: Settled<Completion>): void {
  const fields = { phase: 'candidate', model: settled.model, ms: settled.ms };
  if (settled.result.ok) {
    const { usage, content } = settled.result.value;
    log.info(
      { ...fields, outcome: 'answered', chars: content.length, tokens: usage?.total_tokens, cost: usage?.cost },
      'candidate answered',
    );
  } else {
    const error = settled.result.error;
    log.warn({ ...fields, outcome: 'failed', kind: error.kind, status: error.status }, `candidate failed: ${error.message}`);
  }
}
