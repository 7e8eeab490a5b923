import type { StructuredResult } from './output-schema.js';
import type { TokenUsage } from '../openrouter/client.js';
import type { CandidateRecord, ModelError, RankerRecord, RunState, SynthesisAttempt, WorstCaseRecord } from '../run/record.js';
import type { Joined, RunView } from '../run/service.js';
import { newCost } from './cost.js';
import { getRunAdvice, headline, nextCall } from './headline.js';
import type { Shown } from './shown.js';
import { inFolder } from './text.js';

export interface StructuredOptions {
  /** False: the answers are left to the text content, for clients that read only that. */
  withAnswers: boolean;
  answersIn: StructuredResult['answers_in'];
  joined: Joined | undefined;
  budgetMs: number | undefined;
  poll: number | undefined;
  notice: string | undefined;
}

/** The result as fields: the same facts as the text, for programs and for clients that read only these. */
export function structuredResult(view: RunView, shown: Shown, options: StructuredOptions): StructuredResult {
  const { state: record, dir } = view;
  const running = record.status === 'running';
  return {
    run_id: record.run_id,
    status: record.status,
    summary: headline(record, options.poll, options.joined),
    next_step: nextStep(record, options.poll),
    next_call: running && options.poll !== undefined ? nextCall(record.run_id, options.poll) : null,
    answer: options.withAnswers ? (shown.answer?.text ?? null) : null,
    answer_chars: shown.answer?.chars ?? null,
    answer_cut: shown.answer?.cut ?? false,
    answers_in: options.answersIn,
    run_folder: dir ?? null,
    strategy: record.settings.strategy ?? 'synthesize',
    reasoning_effort: record.settings.reasoning_effort ?? null,
    follow_up_of: record.follow_up_of ?? null,
    judge: judgeFields(record, dir),
    council: councilFields(record, dir),
    agreement: record.synthesis.agreement ?? null,
    cost_ceiling_usd: record.cost?.ceiling_usd ?? null,
    worst_case: record.cost?.worst_case ? worstCaseFields(record.cost.worst_case) : null,
    joined: options.joined ?? null,
    models: record.candidates.map((candidate, i) =>
      modelFields(candidate, running, dir, options.withAnswers ? shown.candidates.get(i)?.text : undefined),
    ),
    synthesizer: {
      status: record.synthesis.status,
      model: record.synthesis.model ?? null,
      attempts: record.synthesis.attempts.map(attemptFields),
      reason: record.synthesis.reason ?? null,
      prompt_chars: record.synthesis.prompt_chars ?? null,
      trimmed: record.synthesis.trimmed ?? [],
      file: inFolder(dir, record.synthesis.file),
    },
    still_running: running
      ? record.candidates.filter((candidate) => candidate.status === 'waiting').map((candidate) => candidate.model)
      : [],
    totals: usageFields(record.totals),
    new_cost: newCost(record, options.joined) ?? null,
    warnings: options.notice ? [...record.warnings, options.notice] : record.warnings,
    budget_ms: options.budgetMs ?? null,
    elapsed_ms: record.elapsed_ms ?? null,
  };
}

function nextStep(record: RunState, poll: number | undefined): string | null {
  if (record.status === 'running') return `${getRunAdvice(record, poll)} to wait for the synthesis.`;
  if (record.status === 'interrupted' || record.status === 'cancelled')
    return 'Call process_prompt again with the same input to resume the run: saved answers are reused, not paid again.';
  return null;
}

function modelFields(
  candidate: CandidateRecord,
  running: boolean,
  dir: string | undefined,
  answer: string | undefined,
): StructuredResult['models'][number] {
  const answered = candidate.status === 'answered' ? candidate : undefined;
  const failed = candidate.status === 'failed' ? candidate : undefined;
  return {
    index: candidate.index,
    model: candidate.model,
    status: candidate.status === 'waiting' ? (running ? 'running' : 'interrupted') : candidate.status,
    ms: answered?.ms ?? failed?.ms ?? null,
    attempts: answered?.attempts ?? null,
    truncated: answered?.truncated ?? false,
    cut_short: answered?.cut_short ?? null,
    usage: answered?.usage ? usageFields(answered.usage) : null,
    error: failed ? errorFields(failed.error) : null,
    file: inFolder(dir, answered?.file),
    reasoning_file: inFolder(dir, candidate.reasoning_file),
    chars: answered?.chars ?? null,
    answer: answer ?? null,
  };
}

function attemptFields(attempt: SynthesisAttempt): StructuredResult['synthesizer']['attempts'][number] {
  return {
    model: attempt.model,
    status: attempt.status,
    ms: attempt.ms ?? null,
    usage: attempt.status === 'answered' && attempt.usage ? usageFields(attempt.usage) : null,
    error: attempt.status === 'failed' ? errorFields(attempt.error) : null,
  };
}

function judgeFields(record: RunState, dir: string | undefined): StructuredResult['judge'] {
  const verdict = record.synthesis.verdict;
  if (!verdict) return null;
  return {
    chosen_index: verdict.choice_index ?? null,
    chosen_model: verdict.choice_model ?? null,
    reason: verdict.reason ?? null,
    warnings: verdict.warnings,
    reply_file: inFolder(dir, verdict.reply_file),
  };
}

function councilFields(record: RunState, dir: string | undefined): StructuredResult['council'] {
  const council = record.council;
  if (!council) return null;
  const modelOf = (index: number) => ({ index, model: record.candidates[index - 1]?.model ?? '?' });
  return {
    rankings: council.rankings.map((ranker) => rankerFields(ranker, modelOf, dir)),
    combined: council.aggregate ?? [],
    note: council.note ?? null,
  };
}

type RankerFields = NonNullable<StructuredResult['council']>['rankings'][number];

function rankerFields(
  ranker: RankerRecord,
  modelOf: (index: number) => RankerFields['ranking'][number],
  dir: string | undefined,
): RankerFields {
  const answered = ranker.status === 'answered' ? ranker : undefined;
  return {
    ranker_index: ranker.index,
    ranker_model: ranker.model,
    status: ranker.status,
    ranking: answered?.order.map(modelOf) ?? [],
    warnings: answered?.warnings ?? [],
    usage: answered?.usage ? usageFields(answered.usage) : null,
    error: ranker.status === 'failed' ? errorFields(ranker.error) : null,
    file: inFolder(dir, answered?.file),
  };
}

function worstCaseFields(worst: WorstCaseRecord): NonNullable<StructuredResult['worst_case']> {
  return { ...worst, refresh_failed: worst.refresh_failed ?? null };
}

function usageFields(usage: TokenUsage): StructuredResult['totals'] {
  return {
    prompt_tokens: usage.prompt_tokens ?? null,
    completion_tokens: usage.completion_tokens ?? null,
    reasoning_tokens: usage.reasoning_tokens ?? null,
    total_tokens: usage.total_tokens ?? null,
    cost: usage.cost ?? null,
  };
}

function errorFields(error: ModelError): NonNullable<StructuredResult['models'][number]['error']> {
  return {
    kind: error.kind,
    message: error.message,
    status: error.status ?? null,
    code: error.code ?? null,
    retry_after_ms: error.retry_after_ms ?? null,
    advice: error.advice ?? null,
  };
}
