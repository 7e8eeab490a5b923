/**
 * A model's answer as Markdown, made into DOM nodes. Answers are untrusted, so no HTML is ever
 * parsed: every text goes in through `textContent`, and only the elements below are made.
 * Links keep only http(s) and mailto targets; images are never loaded (an image shows as its
 * text and address), so no answer can run code, handle an event or fetch anything.
 */
const BLOCK_TAGS = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'blockquote', 'ul', 'ol', 'li', 'hr', 'table'] as const;
const INLINE_TAGS = ['strong', 'em', 'del', 'code', 'a', 'span', 'thead', 'tbody', 'tr', 'th', 'td'] as const;
type Tag = (typeof BLOCK_TAGS)[number] | (typeof INLINE_TAGS)[number];

function el(tag: Tag, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The answer's nodes, in a fragment. */
export function renderMarkdown(source: string): DocumentFragment {
  const out = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      const pre = el('pre');
      const code = pre.appendChild(el('code', body.join('\n')));
      if (fence[2]) code.dataset.lang = fence[2];
      out.append(pre);
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      out.append(inline(el(`h${heading[1]!.length}` as Tag), heading[2]!));
      i++;
      continue;
    }
    if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.append(el('hr'));
      i++;
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i]!)) quoted.push(lines[i++]!.replace(/^ {0,3}> ?/, ''));
      const quote = el('blockquote');
      quote.append(renderMarkdown(quoted.join('\n')));
      out.append(quote);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      i = list(lines, i, out);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1]!)) {
      i = table(lines, i, out);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !startsBlock(lines[i]!)) paragraph.push(lines[i++]!.trim());
    if (paragraph.length === 0) paragraph.push(lines[i++]!.trim());
    out.append(inline(el('p'), paragraph.join('\n')));
  }
  return out;
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;

const startsBlock = (line: string) => /^ {0,3}(#{1,6}\s|>|`{3,}|~{3,})/.test(line) || LIST_ITEM.test(line);

/** A list and the lists nested in it (by indentation); returns the line after it. */
function list(lines: string[], start: number, out: Node): number {
  const first = LIST_ITEM.exec(lines[start]!)!;
  const indent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const node = el(ordered ? 'ol' : 'ul');
  if (ordered && parseInt(first[2]!, 10) !== 1) node.setAttribute('start', String(parseInt(first[2]!, 10)));
  let i = start;
  let item: HTMLElement | undefined;
  while (i < lines.length) {
    const line = lines[i]!;
    const match = LIST_ITEM.exec(line);
    if (match && match[1]!.length === indent) {
      item = inline(el('li'), match[3]!);
      node.append(item);
      i++;
    } else if (match && match[1]!.length > indent && item) {
      i = list(lines, i, item);
    } else if (line.trim() && /^\s+/.test(line) && item && !match) {
      item.append('\n');
      inline(item, line.trim());
      i++;
    } else break;
  }
  out.appendChild(node);
  return i;
}

function table(lines: string[], start: number, out: Node): number {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
  const node = el('table');
  const head = node.appendChild(el('thead')).appendChild(el('tr'));
  for (const cell of cells(lines[start]!)) head.append(inline(el('th'), cell));
  const body = node.appendChild(el('tbody'));
  let i = start + 2;
  while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim()) {
    const row = body.appendChild(el('tr'));
    for (const cell of cells(lines[i++]!)) row.append(inline(el('td'), cell));
  }
  out.appendChild(node);
  return i;
}

/** Code spans, images (as text), links, bold, italics and strike-through; anything else is text. */
const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?[^)]*\)|\[([^\]]+)\]\(\s*<?([^)\s>]+)>?[^)]*\)|\*\*(?=\S)([\s\S]+?)\*\*|__(?=\S)([\s\S]+?)__|\*(?=[^\s*])([\s\S]+?)\*|\b_(?=\S)([\s\S]+?)_\b|~~(?=\S)([\s\S]+?)~~|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

function inline(parent: HTMLElement, text: string): HTMLElement {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, ticks, code, alt, src, label, href, bold1, bold2, em1, em2, del, bare] = match;
    if (ticks) parent.append(el('code', code!.replace(/^ (.*) $/s, '$1')));
    else if (src !== undefined) parent.append(el('span', `[image: ${alt || 'untitled'}${src ? ` (${src})` : ''}]`));
    else if (label !== undefined) parent.append(link(href!, (node) => inline(node, label)));
    else if (bold1 ?? bold2) parent.append(inline(el('strong'), (bold1 ?? bold2)!));
    else if (em1 ?? em2) parent.append(inline(el('em'), (em1 ?? em2)!));
    else if (del) parent.append(inline(el('del'), del));
    else if (bare)
      parent.append(
        link(bare, (node) => {
          node.append(bare);
          return node;
        }),
      );
  }
  if (last < text.length) parent.append(text.slice(last));
  return parent;
}

/** A link to an http(s) or mailto address; any other target (javascript:, data:) leaves its label as text. */
function link(href: string, label: (node: HTMLElement) => HTMLElement): Node {
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:', 'mailto:'].includes(url.protocol)) return label(el('span'));
  const a = label(el('a')) as HTMLAnchorElement;
  a.href = url.href;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  return a;
}
