import type { RunPage } from '../src/view/page-types.js';
import { agreementSection } from './agreement.js';
import { badge, copyButton, dollars, el, seconds, tokens } from './format.js';
import { renderMarkdown } from './markdown.js';
import { outcomeSection } from './outcome.js';

type Model = RunPage['result']['models'][number];

/** The sections under the answers, in order: a new view of the run is one more function here. */
const SECTIONS: Array<(page: RunPage) => HTMLElement | undefined> = [outcomeSection, agreementSection];

/**
 * A run's page: its first line, each model's answer in a column (one tab at a time when
 * narrow, switched with the arrow keys), then what the answers became. Drawn again on each
 * update, keeping the chosen tab and where each column was scrolled.
 */
export class RunPageView {
  private selected = 0;

  constructor(private readonly root: HTMLElement) {}

  show(page: RunPage): void {
    const scrolls = [...this.root.querySelectorAll<HTMLElement>('.column .body')].map((body) => body.scrollTop);
    const { result } = page;
    this.selected = Math.min(this.selected, Math.max(0, result.models.length - 1));
    const main = el('main', { class: 'run', 'data-status': result.status });
    main.append(header(page), this.answers(page));
    for (const section of SECTIONS) {
      const made = section(page);
      if (made) main.append(made);
    }
    this.root.replaceChildren(main);
    for (const [i, body] of [...this.root.querySelectorAll<HTMLElement>('.column .body')].entries()) body.scrollTop = scrolls[i] ?? 0;
  }

  /** A message in place of a run: it cannot be read, or the tool refused. */
  message(text: string): void {
    this.root.replaceChildren(el('main', { class: 'run' }, el('p', { class: 'error', role: 'alert' }, text)));
  }

  private answers(page: RunPage): HTMLElement {
    const models = page.result.models;
    const tabs = el('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Answers' });
    const columns = el('div', { class: 'columns' });
    columns.style.setProperty('--columns', String(models.length));
    models.forEach((model, i) => {
      const selected = i === this.selected;
      const tab = el(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `tab-${i}`,
          'aria-controls': `answer-${i}`,
          'aria-selected': String(selected),
          tabindex: selected ? '0' : '-1',
        },
        `${model.index}. ${shortName(model.model)}`,
      );
      tab.addEventListener('click', () => this.select(i));
      tab.addEventListener('keydown', (event) => this.onKey(event, models.length));
      tabs.append(tab);
      columns.append(column(model, page.answers[i] ?? model.answer, i, selected));
    });
    return el('section', { class: 'answers', 'aria-label': 'Each model’s answer' }, tabs, columns);
  }

  private onKey(event: KeyboardEvent, count: number): void {
    const moves: Record<string, number> = { ArrowRight: this.selected + 1, ArrowLeft: this.selected - 1, Home: 0, End: count - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    this.select((moves[event.key]! + count) % count);
    this.root.querySelector<HTMLElement>(`#tab-${this.selected}`)?.focus();
  }

  private select(index: number): void {
    this.selected = index;
    this.root.querySelectorAll<HTMLElement>('[role=tab]').forEach((tab, i) => {
      tab.setAttribute('aria-selected', String(i === index));
      tab.tabIndex = i === index ? 0 : -1;
    });
    for (const [i, column] of [...this.root.querySelectorAll<HTMLElement>('.column')].entries())
      column.classList.toggle('selected', i === index);
  }
}

function header(page: RunPage): HTMLElement {
  const { result } = page;
  const facts = el('p', { class: 'facts' }, badge(result.status), el('span', {}, result.strategy));
  if (result.elapsed_ms !== null) facts.append(el('span', {}, seconds(result.elapsed_ms)));
  if (result.totals.cost !== null) facts.append(el('span', {}, dollars(result.totals.cost)));
  facts.append(el('span', { class: 'run-id' }, result.run_id));
  const head = el(
    'header',
    { class: 'run-head' },
    el('h1', {}, page.title || result.run_id),
    el('p', { class: 'summary' }, result.summary),
    facts,
  );
  for (const warning of result.warnings) head.append(el('p', { class: 'warning' }, warning));
  return head;
}

function column(model: Model, answer: string | null, i: number, selected: boolean): HTMLElement {
  const facts = el('div', { class: 'facts' }, badge(model.status));
  for (const fact of [seconds(model.ms), tokens(model.usage?.total_tokens), dollars(model.usage?.cost)])
    if (fact) facts.append(el('span', {}, fact));
  const head = el('header', {}, el('h2', {}, el('span', { class: 'model' }, model.model)), facts);
  const body = el('div', { class: 'body markdown', tabindex: '0', 'aria-label': `Answer of ${model.model}` });
  if (answer !== null) {
    head.append(copyButton(`Copy the answer of ${model.model}`, () => answer));
    body.append(renderMarkdown(answer));
    if (model.truncated) body.append(el('p', { class: 'note' }, model.cut_short ?? 'The answer stopped at max_tokens.'));
  } else if (model.error)
    body.append(
      el('p', { class: 'error' }, `${model.error.kind}: ${model.error.message}`),
      ...(model.error.advice ? [el('p', { class: 'note' }, model.error.advice)] : []),
    );
  else
    body.append(
      el(
        'p',
        { class: 'pending' },
        model.status === 'running' ? 'Answering…' : model.status === 'answered' ? 'The answer was not saved.' : 'No answer.',
      ),
    );
  return el(
    'article',
    { class: `column${selected ? ' selected' : ''}`, role: 'tabpanel', id: `answer-${i}`, 'aria-labelledby': `tab-${i}` },
    head,
    body,
  );
}

/** A tab's label: the model's name without its provider, so that five fit at 420 px. */
const shortName = (model: string) => model.slice(model.indexOf('/') + 1);
