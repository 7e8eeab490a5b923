import type { RunRow } from '../src/view/page-types.js';
import { badge, dollars, el, seconds } from './format.js';

const STATUSES = ['running', 'complete', 'partial', 'candidates_only', 'interrupted', 'failed', 'cancelled'];

/** The runs, newest first, with a text filter (prompt or id) and a status filter that survive each refresh. */
export class RunsListView {
  private rows: RunRow[] = [];
  private readonly search = el('input', {
    type: 'search',
    id: 'filter',
    placeholder: 'Filter by prompt or id',
    'aria-label': 'Filter by prompt or id',
  });
  private readonly status = el(
    'select',
    { id: 'status', 'aria-label': 'Filter by status' },
    el('option', { value: '' }, 'Any status'),
    ...STATUSES.map((status) => el('option', { value: status }, status.replace('_', ' '))),
  );
  private readonly table = el('tbody');
  private readonly count = el('p', { class: 'count', 'aria-live': 'polite' });

  constructor(
    root: HTMLElement,
    private readonly href: (id: string) => string,
  ) {
    this.search.addEventListener('input', () => this.draw());
    this.status.addEventListener('change', () => this.draw());
    const head = el(
      'thead',
      {},
      el('tr', {}, ...['Status', 'Started', 'Time', 'Answered', 'Cost', 'Prompt'].map((name) => el('th', { scope: 'col' }, name))),
    );
    root.replaceChildren(
      el(
        'main',
        { class: 'runs' },
        el('h1', {}, 'Runs'),
        el('div', { class: 'filters' }, this.search, this.status),
        this.count,
        el('div', { class: 'table-wrap' }, el('table', { class: 'runs-table' }, head, this.table)),
      ),
    );
  }

  show(rows: RunRow[]): void {
    this.rows = rows;
    this.draw();
  }

  private draw(): void {
    const words = this.search.value.trim().toLowerCase();
    const status = this.status.value;
    const shown = this.rows.filter(
      (row) => (!status || row.status === status) && (!words || `${row.title} ${row.id}`.toLowerCase().includes(words)),
    );
    this.count.textContent = this.rows.length === 0 ? 'No runs yet.' : `${shown.length} of ${this.rows.length} runs`;
    this.table.replaceChildren(
      ...shown.map((row) =>
        el(
          'tr',
          { 'data-run': row.id },
          el('td', {}, badge(row.status)),
          el('td', {}, row.started_at ? new Date(row.started_at).toLocaleString() : ''),
          el('td', {}, seconds(row.elapsed_ms)),
          el('td', {}, `${row.answered}/${row.models}`),
          el('td', {}, dollars(row.cost)),
          el('td', { class: 'prompt' }, el('a', { href: this.href(row.id) }, row.title || row.id)),
        ),
      ),
    );
  }
}
