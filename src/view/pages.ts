import { readFile } from 'node:fs/promises';
import { packageFile } from '../version.js';

/** The pages built from ui/ (scripts/build-ui.ts): `app` for MCP Apps hosts, `view` for the browser. */
export type PageName = 'app' | 'view';

const read = new Map<PageName, Promise<string>>();

/** A built page's HTML, read once (a few hundred KB at most). */
export function pageHtml(name: PageName): Promise<string> {
  let html = read.get(name);
  if (!html) {
    const file = packageFile(`dist/ui/${name}.html`);
    html = readFile(file, 'utf8').catch((error: unknown) => {
      read.delete(name);
      throw new Error(`the run page ${file} cannot be read (${(error as Error).message}); npm run build makes it`);
    });
    read.set(name, html);
  }
  return html;
}
