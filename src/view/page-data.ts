import type { Config } from '../config/config.js';
import { toolResult } from '../present/result.js';
import type { StructuredResult } from '../present/output-schema.js';
import { ok, type Result } from '../result.js';
import type { Listing, LookupError, RunService, RunView } from '../run/service.js';
import type { RunStorage } from '../store/store.js';
import type { RunPage, RunRow } from './page-types.js';

/**
 * A run's page: the result `get_run` would return, made from the run service's view, and the
 * models' answers. Once a synthesis exists the view carries only it, so each answer is then
 * read from `store`, where the service keeps them, at most the result cap of each.
 */
export async function runPage(
  service: RunService,
  store: RunStorage | undefined,
  config: Config,
  id: string,
): Promise<Result<RunPage, LookupError>> {
  const found = await service.view(id, config.maxAnswerChars);
  if (!found.ok) return found;
  const view = found.value;
  const result = toolResult(view, { maxAnswerChars: config.maxAnswerChars, layout: 'both' }).structuredContent as StructuredResult;
  const answers = view.state.candidates.map((_, index) => view.answers.get(index) ?? null);
  if (view.answer !== undefined) await readSavedAnswers(view, store, config, answers);
  return ok({ result, title: view.state.title, answer: view.answer ?? null, answers });
}

async function readSavedAnswers(
  view: RunView,
  store: RunStorage | undefined,
  config: Config,
  answers: Array<string | null>,
): Promise<void> {
  const folder = await store?.openRun(view.state.run_id).catch(() => undefined);
  if (!folder) return;
  await Promise.all(
    view.state.candidates.map(async (candidate, index) => {
      if (candidate.status !== 'answered' || !candidate.file) return;
      // Three bytes at most a character, and a few more: the reader never returns a broken one.
      const text = await folder.readStart(candidate.file, config.maxAnswerChars * 3 + 4).catch(() => undefined);
      if (text !== undefined) answers[index] = text.slice(0, config.maxAnswerChars);
    }),
  );
}

/** A bad or unknown id is the same "not found" to a page: nothing tells which ids exist. */
export function isMissing(error: LookupError): boolean {
  return error.kind === 'bad_id' || error.kind === 'not_found';
}

/** The newest runs as the list shows them. */
export async function runRows(service: RunService, limit: number): Promise<RunRow[]> {
  return (await service.list(limit)).map(row);
}

function row({ id, state }: Listing): RunRow {
  if (!state)
    return {
      id,
      status: 'unknown',
      title: '(its journal is too large to list)',
      started_at: null,
      elapsed_ms: null,
      answered: 0,
      models: 0,
      cost: null,
    };
  const elapsed = state.elapsed_ms ?? (state.status === 'running' ? Date.now() - Date.parse(state.started_at) : null);
  return {
    id,
    status: state.status,
    title: state.title,
    started_at: state.started_at,
    elapsed_ms: elapsed,
    answered: state.candidates.filter((candidate) => candidate.status === 'answered').length,
    models: state.candidates.length,
    cost: state.totals.cost ?? null,
  };
}
