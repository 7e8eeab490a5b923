import type { CandidateRecord, RunState } from '../run/record.js';
import type { Joined } from '../run/service.js';
import { finalPhrase } from './strategy.js';
import { briefError, capitalised, count } from './words.js';

/**
 * The one plain line a result begins with: what the user got and what is missing, in words a
 * person (and the calling model) can act on, and what the run cost; a call that joined a run
 * already paid for says it paid nothing, not that cost again.
 */
export function headline(record: RunState, poll?: number, joined?: Joined): string {
  const line = situation(record, poll);
  if (record.status === 'running') return line;
  if (joined === 'attached') return `${line} Reused run ${record.run_id}, no new cost.`;
  return record.totals.cost === undefined ? line : `${line} Cost $${record.totals.cost.toFixed(4)}.`;
}

function situation(record: RunState, poll: number | undefined): string {
  const { candidates } = record;
  const answered = candidates.filter((candidate) => candidate.status === 'answered');
  const waiting = candidates.filter((candidate) => candidate.status === 'waiting');
  const failures = describeFailures(candidates);
  const tally = `${answered.length} of ${count(candidates.length, 'model')} answered`;
  switch (record.status) {
    case 'complete':
      return `${candidates.length === 1 ? 'The model' : `All ${candidates.length} models`} answered; ${finalPhrase(record)}.`;
    case 'partial':
      return `${tally}${failures ? `; ${failures}` : ''}. ${capitalised(finalPhrase(record))}.`;
    case 'running':
      return `Still running: ${progress(record, tally, waiting)}. ${getRunAdvice(record, poll)} to wait for the synthesis; the run goes on meanwhile, and nothing is lost or paid twice.`;
    case 'candidates_only':
      return `${tally}${failures ? `; ${failures}` : ''}, but no synthesis: ${synthesisFailures(record)}. The result holds the candidates' answers instead.`;
    case 'failed':
      return `No model answered${failures ? `: ${failures}` : ''}.`;
    case 'cancelled':
      return answered.length === 0
        ? 'Cancelled: every upstream request was stopped before any model answered.'
        : `Cancelled: every upstream request was stopped; the result holds the ${answered.length} of ${count(candidates.length, 'answer')} that had arrived. The same request again reuses ${answered.length === 1 ? 'it' : 'them'} and asks only the ${count(candidates.length - answered.length, 'other model')}.`;
    case 'interrupted':
      return `Interrupted: the process running it stopped, with ${answered.length} of ${count(candidates.length, 'answer')} saved. Call process_prompt again with the same input to resume it: only the ${count(candidates.length - answered.length, 'model')} without an answer will be asked.`;
  }
}

/** How to wait for the rest: with the poll number when the caller has one, so that no two calls in a row are the same. */
export function getRunAdvice(record: RunState, poll: number | undefined): string {
  return poll === undefined
    ? `Call get_run with run_id "${record.run_id}"`
    : `Call get_run with ${JSON.stringify(nextCall(record.run_id, poll).arguments)}`;
}

/** The get_run call that waits for the rest of a run. */
export function nextCall(runId: string, poll: number): { tool: 'get_run'; arguments: { run_id: string; poll: number } } {
  return { tool: 'get_run', arguments: { run_id: runId, poll } };
}

function progress(record: RunState, tally: string, waiting: CandidateRecord[]): string {
  if (record.synthesis.status === 'running') return `${tally}, and ${record.synthesis.model} is synthesizing`;
  if (waiting.length === 0) return `${tally}; synthesis is about to start`;
  return `${tally} so far; waiting for ${waiting.map((candidate) => candidate.model).join(', ')}`;
}

function describeFailures(candidates: CandidateRecord[]): string {
  return candidates
    .flatMap((candidate) => (candidate.status === 'failed' ? [`${candidate.model} failed: ${briefError(candidate.error)}`] : []))
    .join('; ');
}

function synthesisFailures(record: RunState): string {
  const failed = record.synthesis.attempts.flatMap((attempt) =>
    attempt.status === 'failed' ? [`${attempt.model} failed: ${briefError(attempt.error)}`] : [],
  );
  return failed.length > 0 ? failed.join('; ') : (record.synthesis.reason ?? 'it did not run');
}
