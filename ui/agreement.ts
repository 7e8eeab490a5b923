import type { RunPage } from '../src/view/page-types.js';
import { el } from './format.js';
import { renderMarkdown } from './markdown.js';

type Agreement = NonNullable<RunPage['result']['agreement']>;

/**
 * Where the models agreed and differed, as the synthesizer told it (SPEC §10): what they all
 * said, each point they differed on with who said what and how the synthesis resolved it, and
 * what only one model raised. Nothing for a run without the account (judge, turned off, or
 * unreadable). Every text is the synthesizer's, so untrusted: it goes through the Markdown
 * renderer, which makes text and a fixed set of elements only.
 */
export function agreementSection(page: RunPage): HTMLElement | undefined {
  const agreement = page.result.agreement;
  if (!agreement) return undefined;
  const { consensus, disagreements, unique } = agreement;
  if (consensus.length + disagreements.length + unique.length === 0) return undefined;
  const section = el(
    'section',
    { class: 'agreement', 'aria-labelledby': 'agreement-title' },
    el('h2', { id: 'agreement-title' }, 'Where the models agreed and differed'),
  );
  if (consensus.length > 0)
    section.append(
      part(
        'Agreed',
        'agreed',
        consensus.map((point) => el('li', {}, prose(point))),
      ),
    );
  if (disagreements.length > 0) section.append(part('Differed', 'differed', disagreements.map(difference)));
  if (unique.length > 0)
    section.append(
      part(
        'Only one model',
        'unique',
        unique.map(({ model, point, kept }) =>
          el(
            'li',
            {},
            el('span', { class: 'model' }, model),
            el('span', { class: `badge ${kept ? 'kept' : 'left-out'}` }, kept ? 'kept' : 'left out'),
            prose(point),
          ),
        ),
      ),
    );
  return section;
}

/** One of the three parts: a heading and its list. */
function part(title: string, name: string, items: HTMLElement[]): HTMLElement {
  return el('div', { class: `part ${name}` }, el('h3', {}, title), el('ul', {}, ...items));
}

/** A point they differed on: the point, each side (its models by id, and their view), then the resolution. */
function difference({ point, positions, resolution }: Agreement['disagreements'][number]): HTMLElement {
  const sides = positions.map(({ models, view }) =>
    el('li', {}, el('span', { class: 'model' }, models.length > 0 ? models.join(', ') : '?'), prose(view)),
  );
  return el(
    'li',
    {},
    el('div', { class: 'point' }, prose(point)),
    el('ul', { class: 'positions' }, ...sides),
    el('div', { class: 'resolution' }, el('span', { class: 'label' }, 'Resolved'), prose(resolution)),
  );
}

/** A text of the account, through the safe Markdown renderer. */
const prose = (text: string) => el('div', { class: 'markdown prose' }, renderMarkdown(text));
