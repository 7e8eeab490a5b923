import type { Completion } from '../../openrouter/client.js';
import type { AgreementFormat } from '../../prompts/agreement/prompt.js';
import { fanOut, type Settled } from '../fanout.js';
import type { AnsweredRanker, ModelError, RankerRecord, RunStatus } from '../record.js';
import { anonymise, type IndexedAnswer, type StrategyPrompt } from '../../prompts/anonymise.js';
import { buildCouncilSynthesisPrompt, buildRankingPrompt, COUNCIL_MIN_CANDIDATES } from '../../prompts/council.js';
import { aggregateRankings, parseRanking, type RankerVerdict } from '../../prompts/ranking.js';
import { modelError, stepChat, stoppedStatus, type StepContext } from './context.js';
import { finalStep, synthesizeStep } from './final.js';

/** Rankings saved before a stop are not asked again; with too few answers or no readable ranking, it is a plain synthesis. */
export async function councilStep(context: StepContext): Promise<RunStatus> {
  const { run, deps, problem, answers } = context;
  if (answers.length < COUNCIL_MIN_CANDIDATES) {
    return plainSynthesis(
      context,
      `only ${answers.length} of the candidates answered, and a council needs ${COUNCIL_MIN_CANDIDATES} answers to rank, so the answers were synthesized without a ranking`,
    );
  }
  const verdicts = await rankings(context);
  const stopped = stoppedStatus(run);
  if (stopped) return stopped;
  if (verdicts.every((verdict) => verdict.order.length === 0)) {
    return plainSynthesis(context, 'no council member’s ranking could be read, so the answers were synthesized without a ranking');
  }
  const ranking = aggregateRankings(verdicts, anonymise(run.id, answers));
  run.council.done({
    aggregate: ranking.map(({ index, model, score, rankers, firsts }) => ({ index: index + 1, model, score, rankers, firsts })),
  });
  const prompt = (agreement?: AgreementFormat) =>
    buildCouncilSynthesisPrompt(problem, answers, ranking, run.id, deps.synthesisMaxChars, agreement);
  return finalStep(context, run.request.agreement === false ? prompt() : prompt);
}

function plainSynthesis(context: StepContext, note: string): Promise<RunStatus> {
  context.run.council.done({ note });
  context.run.warn(`council: ${note}`);
  return synthesizeStep(context);
}

async function rankings(context: StepContext): Promise<RankerVerdict[]> {
  const { run, deps, log, problem, answers } = context;
  const saved = run.council.saved();
  const toAsk = answers.filter((answer) => !saved.some((ranker) => ranker.index === answer.index + 1));
  const prompts = toAsk.map((ranker) => buildRankingPrompt(problem, answers, ranker.index, run.id, deps.synthesisMaxChars));
  log.info({ phase: 'ranking', rankers: toAsk.length, saved: saved.length }, 'council ranking');
  // Each ranking is recorded once its reply is on disk; the synthesis waits for every one.
  const recorded: Array<Promise<RankerVerdict | undefined>> = [];
  const onSettled = (settled: Settled<Completion>) =>
    void recorded.push(recordRanking(context, toAsk[settled.index]!, prompts[settled.index]!, settled));
  const ask = (model: string, signal: AbortSignal | undefined, i: number) =>
    deps.client.complete(stepChat(run, model, prompts[i]!.text), { signal });
  await Promise.all(
    fanOut(
      toAsk.map((ranker) => ranker.model),
      ask,
      { limiter: deps.limiter, signal: run.signal, urgent: true, onSettled },
    ),
  );
  const asked = await Promise.all(recorded);
  return [...saved.map(savedVerdict), ...asked.filter((verdict): verdict is RankerVerdict => verdict !== undefined)];
}

async function recordRanking(
  { run, log }: StepContext,
  ranker: IndexedAnswer,
  prompt: StrategyPrompt,
  { result, ms }: Settled<Completion>,
): Promise<RankerVerdict | undefined> {
  if (!result.ok) {
    log.warn({ phase: 'ranking', model: ranker.model, kind: result.error.kind }, `ranking failed: ${result.error.message}`);
    await run.council.ranked(failedRanker(ranker, modelError(result.error), ms));
    return undefined;
  }
  const { order, warnings } = parseRanking(result.value.content, prompt.shown);
  const verdict: RankerVerdict = { ranker: ranker.index, shown: prompt.shown.map((shown) => shown.index), order };
  log.info({ phase: 'ranking', model: ranker.model, ms, ranked: order.length, cost: result.value.usage?.cost }, 'ranking done');
  await run.council.ranked(answeredRanker(ranker, verdict, warnings, ms, result.value), result.value.content);
  return verdict;
}

function answeredRanker(
  ranker: IndexedAnswer,
  verdict: RankerVerdict,
  warnings: string[],
  ms: number,
  completion: Completion,
): RankerRecord {
  const oneBased = (indices: number[]) => indices.map((index) => index + 1);
  return {
    index: ranker.index + 1,
    model: ranker.model,
    status: 'answered',
    ms,
    ...(completion.usage ? { usage: completion.usage } : {}),
    shown: oneBased(verdict.shown),
    order: oneBased(verdict.order),
    warnings,
  };
}

function failedRanker(ranker: IndexedAnswer, error: ModelError, ms: number): RankerRecord {
  return { index: ranker.index + 1, model: ranker.model, status: 'failed', ...(error.kind === 'cancelled' ? {} : { ms }), error };
}

function savedVerdict(ranker: AnsweredRanker): RankerVerdict {
  return { ranker: ranker.index - 1, shown: ranker.shown.map((index) => index - 1), order: ranker.order.map((index) => index - 1) };
}
