/**
 * The run pages (ui/), each built into one self-contained HTML file: the script and the style
 * inline, nothing loaded from anywhere, and a Content-Security-Policy that allows only that
 * script (by its hash). `app` is the MCP App (it speaks to its host through
 * @modelcontextprotocol/ext-apps); `view` is the browser page of `parallel-llm-mcp view`.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');

/** The most a page may weigh (SPEC §12). */
export const MAX_PAGE_BYTES = 300 * 1024;

const PAGES = {
  app: { entry: 'ui/app.ts', connect: "'none'" },
  view: { entry: 'ui/view.ts', connect: "'self'" },
} as const;

/** Builds every page into `outDir` (dist/ui); returns each one's size in bytes. */
export async function buildUi(outDir: string): Promise<Record<string, number>> {
  await mkdir(outDir, { recursive: true });
  // The theme, layout and answers first (page.css), then Markdown and the runs list (content.css).
  const css = (await Promise.all(['page.css', 'content.css'].map((name) => readFile(path.join(root, 'ui', name), 'utf8')))).join('\n');
  const sizes: Record<string, number> = {};
  for (const [name, page] of Object.entries(PAGES)) {
    const { outputFiles } = await build({
      entryPoints: [path.join(root, page.entry)],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: ['chrome111', 'firefox113', 'safari17'],
      minify: true,
      legalComments: 'none',
      logLevel: 'warning',
      plugins: [englishZod()],
    });
    const script = outputFiles[0]!.text.trim();
    if (/<\/script/i.test(script)) throw new Error(`ui/${page.entry}'s bundle holds "</script": it cannot be inlined`);
    const hash = createHash('sha256').update(script).digest('base64');
    const csp = `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; img-src data:; connect-src ${page.connect}; base-uri 'none'; form-action 'none'`;
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="color-scheme" content="light dark">` +
      `<title>parallel-llm-mcp</title><style>${minifyCss(css)}</style></head><body><div id="root"></div><script>${script}</script></body></html>\n`;
    const bytes = Buffer.byteLength(html);
    if (bytes > MAX_PAGE_BYTES) throw new Error(`the ${name} page is ${bytes} bytes, over ${MAX_PAGE_BYTES}`);
    await writeFile(path.join(outDir, `${name}.html`), html);
    sizes[name] = bytes;
  }
  return sizes;
}

const minifyCss = (css: string) =>
  css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .trim();

/**
 * zod's messages in English alone: the MCP SDK's schemas (which ext-apps uses) pull in every
 * locale of zod, 260 KB the page never uses. The build fails if zod no longer imports them
 * where this expects it.
 */
function englishZod(): Plugin {
  return {
    name: 'english-zod',
    setup(build) {
      let replaced = 0;
      build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => {
        if (!args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)) return undefined;
        replaced++;
        return { path: path.join(path.dirname(args.importer), args.path.replace('index.js', 'en.js')), namespace: 'english-zod' };
      });
      build.onLoad({ filter: /.*/, namespace: 'english-zod' }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        loader: 'js',
        resolveDir: root,
      }));
      build.onEnd(() => {
        if (replaced === 0 && build.initialOptions.entryPoints?.toString().includes('app.ts'))
          throw new Error("zod's locales are no longer imported as expected: see englishZod in scripts/build-ui.ts");
      });
    },
  };
}
