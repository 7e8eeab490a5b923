import type { RunPage } from '../src/view/page-types.js';
import { badge, copyButton, dollars, el, seconds, tokens } from './format.js';
import { renderMarkdown } from './markdown.js';

type Result = RunPage['result'];

/** What the answers became: the synthesis, or the judge's choice and reason, or the council's rankings, then the final answer. */
export function outcomeSection(page: RunPage): HTMLElement {
  const { result } = page;
  const section = el('section', { class: 'outcome', 'aria-labelledby': 'outcome-title' });
  const title = result.strategy === 'judge' ? 'The judge’s choice' : result.strategy === 'council' ? 'The council' : 'Synthesis';
  section.append(el('h2', { id: 'outcome-title' }, title));
  if (result.judge) section.append(judgeBlock(result.judge));
  if (result.council) section.append(...councilBlocks(result.council));
  section.append(finalAnswer(page));
  return section;
}

function judgeBlock(judge: NonNullable<Result['judge']>): HTMLElement {
  const chosen =
    judge.chosen_index === null
      ? 'The judge named no answer; its whole reply is the answer.'
      : `Chose answer ${judge.chosen_index}: ${judge.chosen_model ?? '?'}`;
  const block = el('div', { class: 'verdict' }, el('p', { class: 'chosen' }, chosen));
  if (judge.reason) block.append(el('p', { class: 'reason' }, el('strong', {}, 'Why: '), judge.reason));
  for (const warning of judge.warnings) block.append(el('p', { class: 'warning' }, warning));
  return block;
}

function councilBlocks(council: NonNullable<Result['council']>): HTMLElement[] {
  const rankings = el(
    'table',
    { class: 'rankings' },
    el('caption', {}, 'How each model ranked the others’ answers (best first; each saw them anonymised)'),
    el(
      'thead',
      {},
      el('tr', {}, el('th', { scope: 'col' }, 'Ranked by'), el('th', { scope: 'col' }, 'Status'), el('th', { scope: 'col' }, 'Ranking')),
    ),
    el(
      'tbody',
      {},
      // In the models' order, as the answers stand: run.json keeps the rankings in the order they came in.
      ...[...council.rankings]
        .sort((a, b) => a.ranker_index - b.ranker_index)
        .map((ranker) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, `${ranker.ranker_index}. ${ranker.ranker_model}`),
            el('td', {}, badge(ranker.status)),
            el('td', {}, ranker.error ? ranker.error.message : el('ol', {}, ...ranker.ranking.map((entry) => el('li', {}, entry.model)))),
          ),
        ),
    ),
  );
  const blocks: HTMLElement[] = [rankings];
  if (council.combined.length > 0)
    blocks.push(
      el(
        'table',
        { class: 'combined' },
        el('caption', {}, 'Combined ranking (1: first for every reviewer)'),
        el('thead', {}, el('tr', {}, ...['#', 'Model', 'Score', 'Firsts', 'Rankers'].map((name) => el('th', { scope: 'col' }, name)))),
        el(
          'tbody',
          {},
          ...council.combined.map((entry, place) =>
            el(
              'tr',
              {},
              el('td', {}, String(place + 1)),
              el('th', { scope: 'row' }, `${entry.index}. ${entry.model}`),
              el('td', {}, entry.score.toFixed(2)),
              el('td', {}, String(entry.firsts)),
              el('td', {}, String(entry.rankers)),
            ),
          ),
        ),
      ),
    );
  if (council.note) blocks.push(el('p', { class: 'note' }, council.note));
  return blocks;
}

function finalAnswer(page: RunPage): HTMLElement {
  const { synthesizer } = page.result;
  const answered = synthesizer.attempts.find((attempt) => attempt.status === 'answered');
  const facts = el('div', { class: 'facts' }, badge(synthesizer.status));
  if (synthesizer.model) facts.append(el('span', { class: 'model' }, synthesizer.model));
  if (answered)
    facts.append(
      el('span', {}, seconds(answered.ms)),
      el('span', {}, tokens(answered.usage?.total_tokens)),
      el('span', {}, dollars(answered.usage?.cost)),
    );
  const block = el('article', { class: 'final' }, el('header', {}, facts));
  for (const attempt of synthesizer.attempts.filter((attempt) => attempt.error))
    block.append(el('p', { class: 'error' }, `${attempt.model} failed: ${attempt.error!.message}`));
  if (page.answer !== null) {
    block.querySelector('header')!.append(copyButton('Copy the final answer', () => page.answer ?? ''));
    block.append(el('div', { class: 'markdown body', tabindex: '0' }, renderMarkdown(page.answer)));
  } else block.append(el('p', { class: 'pending' }, pendingText(page.result)));
  return block;
}

function pendingText(result: Result): string {
  if (synthesizerReason(result)) return synthesizerReason(result)!;
  if (result.status === 'running')
    return result.synthesizer.status === 'running'
      ? `${result.synthesizer.model ?? 'The synthesizer'} is at work…`
      : 'Waiting for the answers…';
  return 'No final answer.';
}

const synthesizerReason = (result: Result) => result.synthesizer.reason;
