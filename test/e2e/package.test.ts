import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { packagesNpxInstalled, projectRoot } from '../support/install.js';
import { binPath, connect, processPrompt, startE2eFake, userEnv } from './support.js';

const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

/**
 * Module hooks that print, on stderr, `RESOLVED <package>` for every module resolved from another
 * package's folder, and `LOADED <file>` for every file of this package's dist/ as it is loaded:
 * the bundle must hold everything, and the server need not load undici's chunk at all.
 */
const REPORT_MODULES_HOOKS = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url)?.[1];
  if (name && name !== 'parallel-llm-mcp') writeSync(2, 'RESOLVED ' + name + '\\n');
  const file = /\\/parallel-llm-mcp\\/dist\\/([^/]+)$/.exec(resolved.url)?.[1];
  if (file) writeSync(2, 'LOADED ' + file + '\\n');
  return resolved;
}`;
const REPORT_MODULES = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(REPORT_MODULES_HOOKS)}`)});`,
)}`;

const reported = (word: string, stderr: string) => [
  ...new Set([...stderr.matchAll(new RegExp(`^${word} (\\S+)$`, 'gm'))].map((match) => match[1])),
];
const undiciChunk = (stderr: string) => reported('LOADED', stderr).some((file) => /^undici-\w+\.js$/.test(file!));

describe('the published package', () => {
  it('holds only what a user needs: the built JavaScript, the README and every page of docs/ it links to, the config examples, the license', () => {
    const files = inject('packedFiles');
    const docs = readdirSync(path.join(projectRoot, 'docs')).map((file) => `docs/${file}`);
    const top = ['.env.example', 'IMPROVEMENTS.md', 'LICENSE', 'README.md', 'mcp_config.json', 'package.json'];
    expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual([...top, ...docs].sort());
    // Source maps point at src/, which is not shipped; the bundle carries its packages' licences; the run pages are built HTML.
    expect(files.filter((file) => file.startsWith('dist/') && !file.endsWith('.js')).sort()).toEqual([
      'dist/THIRD-PARTY-LICENSES.md',
      'dist/ui/app.html',
      'dist/ui/view.html',
    ]);
    expect(files).toContain('dist/bin.js');
  });

  it('is packed and installed without leaving a file in the temporary folder (the build runs tsx)', () => {
    expect(readdirSync(inject('packTmp'))).toEqual([]);
  });

  it('names no web page that does not exist: no homepage, repository or bugs URL; the MIT license', () => {
    expect(Object.keys(packageJson).filter((key) => ['homepage', 'repository', 'bugs'].includes(key))).toEqual([]);
    expect(packageJson.license).toBe('MIT');
    expect(readFileSync(path.join(projectRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('declares no runtime dependency: dist/ bundles every package it runs', () => {
    expect(packageJson.dependencies ?? {}).toEqual({});
  });

  it('starts and answers without loading any other package, nor its undici chunk: the upstream client lives in the run host', async () => {
    const fake = await startE2eFake();
    const session = await connect(userEnv(fake, await tempDir()), process.execPath, ['--import', REPORT_MODULES, binPath()]);
    await session.client.listTools();
    expect(reported('LOADED', session.stderr())).toContain('index.js');
    const { data } = await processPrompt(session, { prompt: 'What is 2+2?' });
    expect(data!.status).toBe('complete');
    await session.close();
    expect(undiciChunk(session.stderr())).toBe(false);
    expect(reported('RESOLVED', session.stderr())).toEqual([]);
    await fake.close();
  });

  it('loads under 640 KiB of its JavaScript to answer initialize, since loading it is much of what an MCP client waits for', async () => {
    const fake = await startE2eFake();
    const session = await connect(userEnv(fake, await tempDir()), process.execPath, ['--import', REPORT_MODULES, binPath()]);
    // Nothing more is loaded until a call: what was loaded by this answer is what initialize needed.
    await session.client.listTools();
    await session.close();
    await fake.close();
    const dist = path.dirname(realpathSync(binPath()));
    const bytes = reported('LOADED', session.stderr()).reduce((sum, file) => sum + statSync(path.join(dist, file!)).size, 0);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(640 * 1024);
  });
});

describe('a cold npx of the tarball', () => {
  it('installs at most 5 packages into an empty npm cache and prints the version', async () => {
    const dir = await tempDir();
    const npmCache = path.join(dir, 'npm-cache');
    const printed = execFileSync('npx', ['-y', `--package=${inject('tarball')}`, 'parallel-llm-mcp', '--version'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_cache: npmCache, npm_config_update_notifier: 'false' },
      encoding: 'utf8',
    });
    expect(printed).toBe(`${packageJson.version}\n`);
    expect(packagesNpxInstalled(npmCache).length).toBeLessThanOrEqual(5);
  }, 60_000);
});
