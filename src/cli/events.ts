import type { CandidateRecord, ModelError, RankerRecord, RunState } from '../run/record.js';

/** What the board shows: a model finishing, a council member ranking, synthesis starting, and how synthesis ended. */
export type BoardEvent =
  | { type: 'candidate'; candidate: CandidateRecord; settled: number; total: number }
  | { type: 'ranked'; ranker: RankerRecord }
  | { type: 'synthesis'; model: string; candidates: number };

export interface SynthesisOutcome {
  model: string;
  status: 'answered' | 'failed' | 'skipped';
  ms?: number;
  error?: ModelError;
  reason?: string;
}

/** The events between two records of the same run: the models that finished, the rankings that came, and synthesis if it started. */
export function eventsBetween(before: RunState | undefined, after: RunState): BoardEvent[] {
  const events: BoardEvent[] = [];
  const total = after.candidates.length;
  let settled = before?.candidates.filter((candidate) => candidate.status !== 'waiting').length ?? 0;
  after.candidates.forEach((candidate, i) => {
    if (candidate.status === 'waiting' || (before && before.candidates[i]?.status !== 'waiting')) return;
    events.push({ type: 'candidate', candidate, settled: ++settled, total });
  });
  const rankings = after.council?.rankings ?? [];
  for (const ranker of rankings.slice(before?.council?.rankings.length ?? 0)) events.push({ type: 'ranked', ranker });
  const startedSynthesis = after.synthesis.model !== undefined && after.synthesis.model !== before?.synthesis.model;
  if (startedSynthesis)
    events.push({
      type: 'synthesis',
      model: after.synthesis.model!,
      candidates: after.candidates.filter((c) => c.status === 'answered').length,
    });
  return events;
}

/** How synthesis ended, for the board's last line. */
export function synthesisOutcome(record: RunState): SynthesisOutcome {
  const { synthesis } = record;
  const last = synthesis.attempts.at(-1);
  if (last?.status === 'answered') return { model: last.model, status: 'answered', ms: last.ms };
  if (last?.status === 'failed') return { model: last.model, status: 'failed', ms: last.ms, error: last.error };
  return { model: record.settings.synthesizer_models[0]!, status: 'skipped', reason: synthesis.reason ?? 'it did not run' };
}
