import type { Completion } from '../openrouter/client.js';
import type { EarlierRun } from './follow-up.js';
import type { CandidateRecord, CostRecord, ModelError, Owner, RunRecord } from './record.js';
import type { Logger } from 'pino';
import type { RunPlace } from '../store/store.js';
import type { RunRequest } from './request.js';

/** A stopped run's journal, with the answers that can be read back (0-based). */
export interface SavedRun {
  record: RunRecord;
  answers: Map<number, string>;
}

export interface NewRun {
  id: string;
  key: string;
  request: RunRequest;
  owner: Owner;
  place: RunPlace | undefined;
  log: Logger;
  /** The key is never written to a file, even if pasted into the prompt. */
  redact: (text: string) => string;
  resumed?: SavedRun;
  cost: CostRecord;
  earlier?: EarlierRun;
}

export function freshRecord(init: NewRun): RunRecord {
  const now = new Date().toISOString();
  const { request } = init;
  return {
    format: 1,
    run_id: init.id,
    request_key: init.key,
    status: 'running',
    owner: init.owner,
    started_at: now,
    updated_at: now,
    resumes: 0,
    settings: {
      models: request.models,
      synthesizer_models: request.synthesizers,
      temperature: request.temperature,
      max_tokens: request.maxTokens,
      strategy: request.strategy,
      ...(request.reasoningEffort === undefined ? {} : { reasoning_effort: request.reasoningEffort }),
      ...(request.agreement === false ? { agreement: false } : {}),
    },
    ...(request.followUpOf === undefined ? {} : { follow_up_of: request.followUpOf }),
    cost: init.cost,
    prompt: init.redact(request.prompt),
    candidates: request.models.map((model, i): CandidateRecord => ({ index: i + 1, model, status: 'waiting' })),
    synthesis: { status: 'waiting', attempts: [] },
    totals: {},
    warnings: [],
  };
}

/** Answered candidates and rankings stay, paid once; the rest wait again. */
export function resumedRecord(previous: RunRecord, owner: Owner, cost: CostRecord): RunRecord {
  const rankings = previous.council?.rankings.flatMap((ranker) =>
    ranker.status === 'answered' ? [{ ...ranker, reused: true as const }] : [],
  );
  return {
    ...previous,
    status: 'running',
    owner,
    resumes: previous.resumes + 1,
    cost,
    candidates: previous.candidates.map((candidate) =>
      candidate.status === 'answered'
        ? { ...candidate, reused: true }
        : { index: candidate.index, model: candidate.model, status: 'waiting' },
    ),
    council: rankings && { rankings },
    synthesis: { status: 'waiting', attempts: [] },
    finished_at: undefined,
    elapsed_ms: undefined,
  };
}

export type SettledCandidate = Extract<CandidateRecord, { status: 'answered' | 'failed' }>;

export function answeredCandidate(candidate: CandidateRecord, completion: Completion, ms: number): SettledCandidate {
  return {
    index: candidate.index,
    model: candidate.model,
    status: 'answered',
    ms,
    attempts: completion.attempts,
    chars: completion.chars,
    ...(completion.truncated ? { truncated: true } : {}),
    ...(completion.cutShort ? { cut_short: completion.cutShort } : {}),
    ...(completion.usage ? { usage: completion.usage } : {}),
  };
}

export function failedCandidate(candidate: CandidateRecord, error: ModelError, ms: number | undefined): SettledCandidate {
  return {
    index: candidate.index,
    model: candidate.model,
    status: 'failed',
    ...(ms === undefined ? {} : { ms }),
    error,
  };
}
