/**
 * The build: src/ and its dependencies bundled into dist/ by esbuild, so that an MCP client
 * waits for a few files to load instead of several hundred (BENCHMARKS.md, startup), and a
 * cold `npx` of the tarball installs nothing but the package itself. The terminal commands and
 * undici stay in chunks of their own, loaded only when used. Whitespace
 * and syntax are minified but names are kept, so a stack trace still names its functions; no
 * source maps, since the package ships no sources for them to point at. The licences of the
 * bundled packages go into dist/THIRD-PARTY-LICENSES.md.
 */
import { execFileSync } from 'node:child_process';
import { chmod, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { buildUi } from './build-ui.js';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

await rm(dist, { recursive: true, force: true });
const { metafile } = await build({
  // bin.js turns on the compile cache, then loads index.js, which holds the rest.
  entryPoints: [path.join(root, 'src', 'bin.ts'), path.join(root, 'src', 'index.ts')],
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  // The terminal commands go in chunks of their own, loaded only when asked for. Chunks sit
  // beside index.js: src/version.ts reads package.json at ../package.json from its own file.
  splitting: true,
  chunkNames: '[name]-[hash]',
  // Everything is bundled. undici's chunk is loaded on the first request, through
  // src/openrouter/undici.ts, which takes only the two of undici's files the client uses.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // Bundled CommonJS packages (pino) require Node's modules; ESM has no `require` of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
  plugins: [withoutAjv(), withoutPinoStreams()],
  // Team mode's package, with its Postgres client, is installed beside this one by those who
  // use it (docs/team.md), and loaded only by the team commands (src/team/load.ts).
  external: ['parallel-llm-mcp-team'],
});
await chmod(path.join(dist, 'bin.js'), 0o755);
await buildTeam();
await writeFile(path.join(dist, 'THIRD-PARTY-LICENSES.md'), await licences(metafile));
// The run pages (SPEC §12), read by the server and by `view` from dist/ui.
await buildUi(path.join(dist, 'ui'));
await checkItStarts();

/**
 * The workspace package packages/team, parallel-llm-mcp-team: one ESM file whose dependencies
 * (pg) stay dependencies, installed with it.
 */
async function buildTeam(): Promise<void> {
  const team = path.join(root, 'packages', 'team');
  await rm(path.join(team, 'dist'), { recursive: true, force: true });
  await build({
    entryPoints: [path.join(team, 'src', 'index.ts')],
    outfile: path.join(team, 'dist', 'index.js'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20.18',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/**
 * The MCP SDK's Ajv-backed JSON Schema validator, replaced by src/sdk/json-schema-validator.ts
 * (why: there). The build fails if the SDK no longer imports it where this expects it, so a new
 * SDK cannot quietly bring Ajv back.
 */
function withoutAjv(): Plugin {
  return {
    name: 'without-ajv',
    setup(build) {
      let replaced = 0;
      build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) => {
        if (!args.importer.includes(`${path.sep}@modelcontextprotocol${path.sep}sdk${path.sep}`)) return undefined;
        replaced++;
        return { path: path.join(root, 'src', 'sdk', 'json-schema-validator.ts') };
      });
      build.onEnd(() => {
        if (replaced === 0) throw new Error('the MCP SDK no longer imports validation/ajv-provider.js: see withoutAjv in scripts/build.ts');
      });
    },
  };
}

/**
 * pino's own ways out, which this package never uses (src/log/ writes through its own sinks):
 * its file destination (sonic-boom) and its worker-thread transports (thread-stream), replaced
 * by stubs that throw if called, and its `isMainThread` (read only for a sonic-boom) given. So
 * a server does not load Node's assert and worker_threads for them. The build fails if pino no
 * longer imports them, as withoutAjv does.
 */
function withoutPinoStreams(): Plugin {
  const unused = (name: string) =>
    `module.exports = class { constructor() { throw new Error('${name} is not bundled: see scripts/build.ts'); } };`;
  const stubs: Record<string, string> = {
    'sonic-boom': unused('sonic-boom'),
    'thread-stream': unused('thread-stream'),
    worker_threads: 'module.exports = { isMainThread: true };',
  };
  return {
    name: 'without-pino-streams',
    setup(build) {
      const replaced = new Set<string>();
      build.onResolve({ filter: /^(sonic-boom|thread-stream|worker_threads)$/ }, (args) => {
        if (!args.importer.includes(`${path.sep}node_modules${path.sep}pino${path.sep}`)) return undefined;
        replaced.add(args.path);
        return { path: args.path, namespace: 'pino-stub' };
      });
      build.onLoad({ filter: /.*/, namespace: 'pino-stub' }, (args) => ({ contents: stubs[args.path], loader: 'js' }));
      build.onEnd(() => {
        const missing = Object.keys(stubs).filter((name) => !replaced.has(name));
        if (missing.length > 0) throw new Error(`pino no longer imports ${missing.join(', ')}: see withoutPinoStreams in scripts/build.ts`);
      });
    },
  };
}

/**
 * `--version` loads and runs every module of the server: a bundle whose modules initialise in
 * the wrong order (esbuild cannot always keep ESM cycles' order) fails here, not at a user's.
 */
async function checkItStarts(): Promise<void> {
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const printed = execFileSync(process.execPath, [path.join(dist, 'bin.js'), '--version'], { encoding: 'utf8' }).trim();
  if (printed !== version) throw new Error(`dist/bin.js --version printed "${printed}", not ${version}`);
}

/** Every bundled package's name, version and licence text; fails when a package has no licence file. */
async function licences(meta: Metafile): Promise<string> {
  const packageDirs = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packageDirs.add(path.resolve(root, match[1]!));
  }
  const sections: string[] = [];
  for (const dir of [...packageDirs].sort()) {
    const { name, version, license } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Record<string, string>;
    const file = (await readdir(dir)).find((entry) => /^(licen[cs]e|copying)/i.test(entry));
    if (!file) throw new Error(`${name}@${version} is bundled but has no licence file to ship with it`);
    sections.push(`## ${name}@${version} (${license})\n\n${(await readFile(path.join(dir, file), 'utf8')).trim()}\n`);
  }
  return `# Third-party licences\n\ndist/ bundles the following packages.\n\n${sections.join('\n')}`;
}
