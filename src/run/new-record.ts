import type { CandidateRecord, Owner, RunRecord } from './record.js';
import type { NewRun } from './run.js';

/** The record of a run that starts now: every candidate waiting. */
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
    settings: { models: request.models, synthesizer_models: request.synthesizers, temperature: request.temperature, max_tokens: request.maxTokens },
    prompt: init.redact(request.prompt),
    candidates: request.models.map((model, i): CandidateRecord => ({ index: i + 1, model, status: 'waiting' })),
    synthesis: { status: 'waiting', attempts: [] },
    totals: {},
    warnings: [],
  };
}

/** A record taken over from an interrupted process: answered candidates stay, the rest wait again. */
export function resumedRecord(previous: RunRecord, owner: Owner): RunRecord {
  return {
    ...previous,
    status: 'running',
    owner,
    resumes: previous.resumes + 1,
    candidates: previous.candidates.map((candidate) =>
      candidate.status === 'answered' ? candidate : { index: candidate.index, model: candidate.model, status: 'waiting' },
    ),
    synthesis: { status: 'waiting', attempts: [] },
    finished_at: undefined,
    elapsed_ms: undefined,
  };
}
