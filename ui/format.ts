/** Small formatting helpers shared by the pages. */

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export const seconds = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '' : ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;

export const dollars = (cost: number | null | undefined): string => (cost === null || cost === undefined ? '' : `$${cost.toFixed(4)}`);

export const tokens = (count: number | null | undefined): string =>
  count === null || count === undefined ? '' : `${count.toLocaleString('en-US')} tokens`;

/** A status as a word and the class that colours it. */
export function badge(status: string): HTMLElement {
  return el('span', { class: `badge status-${status}` }, status.replace('_', ' '));
}

/** A button that copies a text, saying so; falls back to a selection where the clipboard is not allowed (a sandboxed frame). */
export function copyButton(label: string, text: () => string): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'copy', 'aria-label': label }, 'Copy');
  button.addEventListener('click', () => {
    const done = (ok: boolean) => {
      button.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    };
    const fallback = () => {
      const area = el('textarea', { class: 'offscreen' });
      area.value = text();
      document.body.append(area);
      area.select();
      done(document.execCommand('copy'));
      area.remove();
    };
    if (navigator.clipboard) navigator.clipboard.writeText(text()).then(() => done(true), fallback);
    else fallback();
  });
  return button;
}
