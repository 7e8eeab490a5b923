import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..', '..');

/** One ESM file for Node (CommonJS packages inside get a `require`), with what is never used left out. */
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  logLevel: 'error',
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // pg's optional native binding and its Cloudflare socket are never used on Node, nor DBOS's
  // OpenTelemetry and winston, which it requires only when its own OTLP export is turned on.
  external: ['pg-native', 'cloudflare:sockets', '@opentelemetry/*', 'winston', 'winston-transport'],
} as const satisfies BuildOptions;

/**
 * The bin and the team package bundled from the current sources into a temporary folder laid
 * out as an install is (dist/ beside package.json; the team package in node_modules, with pg
 * inside it), so the tests run the commands as users do without `npm run build`, and each
 * command starts in a fraction of what compiling the sources with tsx takes. Returns the folder.
 */
export async function buildCli(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plm-team-cli.'));
  try {
    await build({
      ...NODE_BUNDLE,
      entryPoints: [path.join(root, 'src', 'bin.ts'), path.join(root, 'src', 'index.ts')],
      outdir: path.join(dir, 'dist'),
      splitting: true,
      external: ['parallel-llm-mcp-team'],
    });
    await copyFile(path.join(root, 'package.json'), path.join(dir, 'package.json'));
    const team = path.join(dir, 'node_modules', 'parallel-llm-mcp-team');
    await mkdir(team, { recursive: true });
    await writeFile(
      path.join(team, 'package.json'),
      JSON.stringify({ name: 'parallel-llm-mcp-team', type: 'module', exports: './index.js' }),
    );
    await build({
      ...NODE_BUNDLE,
      entryPoints: [path.join(root, 'packages', 'team', 'src', 'index.ts')],
      outfile: path.join(team, 'index.js'),
    });
    return dir;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
