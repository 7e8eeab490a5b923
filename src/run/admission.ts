import type { PriceCatalog } from '../openrouter/price-catalog.js';
import { err, ok, type Result } from '../result.js';
import { costRefusalRecord, fitCeiling, worstCaseRecord } from './ceiling.js';
import { worstCase, type CostPlan, type WorstCase } from './cost.js';
import { boundEarlier, longestConversation, readEarlierRun, type EarlierRun, type EarlierSources } from './follow-up.js';
import type { CostRecord } from './record.js';
import type { StartRefusal } from './start-refusal.js';
import type { RunRequest } from './request.js';
import type { SavedRun } from './new-record.js';
import type { StoredRun } from './stored.js';

/**
 * Holds a new run's worst case (undefined when prices cannot be read) against a budget before
 * anything is asked upstream, under the id the run will have; a refusal starts nothing. Asked
 * again for the same id when a claim is retried, so it must answer the same without holding twice.
 */
export type Reserve = (runId: string, request: RunRequest, worst: WorstCase | undefined) => Promise<Result<void, StartRefusal>>;

export interface AdmissionDeps {
  prices: Pick<PriceCatalog, 'prices' | 'atHand'>;
  earlierRun(id: string): Promise<Result<EarlierRun, string>>;
  maxPromptChars: number;
  synthesisMaxChars: number;
  /** Team mode's budgets: every new run's worst case is held before it starts. */
  reserve?: Reserve;
}

export interface Admitted {
  cost: CostRecord;
  earlier?: EarlierRun;
  warnings: string[];
}

/** What a stopped run saved is read back once, before its worst case counts those answers as paid. */
export interface AdmittedResume extends Admitted {
  resumed: SavedRun;
}

/** Decided before any upstream request or folder: a follow-up's earlier turns are read, then the cost is checked (`priced`). */
async function admit(
  request: RunRequest,
  ceilingUsd: number | undefined,
  saved: readonly number[],
  deps: AdmissionDeps,
  newRunId?: string,
): Promise<Result<Admitted, StartRefusal>> {
  const followed = request.followUpOf === undefined ? undefined : await followUp(request, request.followUpOf, deps);
  if (followed && !followed.ok) return followed;
  const earlier = followed?.value.earlier;
  const warnings = followed?.value.warnings ?? [];
  const plan: CostPlan = {
    strategy: request.strategy,
    models: request.models,
    synthesizers: request.synthesizers,
    input: earlier ? longestConversation(earlier, request.models, request.prompt) : request.prompt,
    maxTokens: request.maxTokens,
    stepMaxChars: deps.synthesisMaxChars,
    saved,
    ...(request.agreement === false ? { agreement: false } : {}),
  };
  const { reserve } = deps;
  const hold = reserve && newRunId !== undefined ? (worst: WorstCase | undefined) => reserve(newRunId, request, worst) : undefined;
  const cost = await priced(plan, ceilingUsd, deps.prices, hold);
  return cost.ok ? ok({ cost: cost.value, ...(earlier ? { earlier } : {}), warnings }) : cost;
}

/**
 * The one cost check. Under a ceiling the worst case must fit at prices that can be read; a budget
 * (`hold`) needs the worst case too, so prices are waited for, the ceiling checked first, and an
 * unknown worst case held only when no ceiling asks for one. Without either nothing waits for prices.
 */
async function priced(
  plan: CostPlan,
  ceilingUsd: number | undefined,
  catalog: AdmissionDeps['prices'],
  hold: ((worst: WorstCase | undefined) => Promise<Result<void, StartRefusal>>) | undefined,
): Promise<Result<CostRecord, StartRefusal>> {
  if (ceilingUsd === undefined && !hold) {
    const prices = catalog.atHand();
    return ok(prices ? { worst_case: worstCaseRecord(worstCase(plan, prices.table), prices) } : {});
  }
  const prices = await catalog.prices();
  if (!prices.ok) {
    if (ceilingUsd !== undefined)
      return err({ kind: 'prices_unavailable', ceiling_usd: ceilingUsd, message: prices.error.message, advice: prices.error.advice });
    const held = (await hold?.(undefined)) ?? ok(undefined);
    return held.ok ? ok({}) : held;
  }
  const fit = ceilingUsd === undefined ? ok(worstCase(plan, prices.value.table)) : fitCeiling(plan, prices.value.table, ceilingUsd);
  if (!fit.ok) return err(costRefusalRecord(fit.error, prices.value));
  const held = (await hold?.(fit.value)) ?? ok(undefined);
  if (!held.ok) return held;
  return ok({ ...(ceilingUsd === undefined ? {} : { ceiling_usd: ceilingUsd }), worst_case: worstCaseRecord(fit.value, prices.value) });
}

async function followUp(
  request: RunRequest,
  id: string,
  deps: AdmissionDeps,
): Promise<Result<{ earlier: EarlierRun; warnings: string[] }, StartRefusal>> {
  const found = await deps.earlierRun(id);
  if (!found.ok) return err({ kind: 'follow_up', message: found.error });
  const { earlier, shortened } = boundEarlier(found.value, request.prompt, deps.maxPromptChars);
  const warnings = shortened
    ? [
        `the follow-up's conversation was longer than PARALLEL_LLM_MAX_PROMPT_CHARS (${deps.maxPromptChars} characters), so the earlier turns were shortened to fit`,
      ]
    : [];
  return ok({ earlier, warnings });
}

/** Whether a request may start, or a stopped run resume: decided before anything is paid. */
export interface Admit {
  /** `id`: the id the new run will have, under which a budget holds its worst case. */
  fresh(id: string): Promise<Result<Admitted, StartRefusal>>;
  /** A resumed run pays only for the answers it cannot read back. */
  resume(stopped: StoredRun): Promise<Result<AdmittedResume, StartRefusal>>;
}

export function admitter(deps: Omit<AdmissionDeps, 'earlierRun'>, sources: EarlierSources, keepChars: number) {
  const withEarlier = { ...deps, earlierRun: (id: string) => readEarlierRun(id, sources, deps.maxPromptChars) };
  return (request: RunRequest, ceilingUsd: number | undefined): Admit => ({
    fresh: (id) => admit(request, ceilingUsd, [], withEarlier, id),
    async resume(stopped) {
      const saved = await savedRun(stopped, keepChars);
      const admitted = await admit(request, ceilingUsd, [...saved.answers.keys()], withEarlier);
      return admitted.ok ? ok({ ...admitted.value, resumed: saved }) : admitted;
    },
  });
}

/** An answer the journal names but whose file cannot be read is asked again. */
async function savedRun(stored: StoredRun, keepChars: number): Promise<SavedRun> {
  const { record, texts } = await stored.texts(keepChars);
  const candidates = record.candidates.map((candidate, i) =>
    candidate.status === 'answered' && !texts.answers.has(i)
      ? { index: candidate.index, model: candidate.model, status: 'waiting' as const }
      : candidate,
  );
  return { record: { ...record, candidates }, answers: new Map(texts.answers) };
}
