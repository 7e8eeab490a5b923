import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const projectRoot = path.resolve(import.meta.dirname, '../..');

export interface Installed {
  /** The temporary folder holding the tarball, the install and the npm cache. */
  dir: string;
  tarball: string;
  /** The files `npm pack` put in the tarball, as a user receives them. */
  files: string[];
  /** The bin as `npm install parallel-llm-mcp-<v>.tgz` puts it. */
  binPath: string;
  /**
   * npm's cache for everything the suite runs: its packages, npx's installs (`_npx`) and npm's
   * logs land here, in the temporary folder, instead of growing the user's ~/.npm on every run.
   */
  npmCache: string;
  /** The temporary folder npm and the build it runs (`prepare`) were given: left empty. */
  tmp: string;
}

const QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

/** Packs the package as npm would publish it and installs the tarball into a fresh folder. */
export async function packAndInstall(): Promise<Installed> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-pack-'));
  const npmCache = path.join(dir, 'npm-cache');
  const tmp = path.join(dir, 'tmp');
  await mkdir(tmp);
  // `npm pack` builds (prepare) with tsx, which caches what it compiles in TMPDIR unless told not to.
  const env = { ...process.env, npm_config_cache: npmCache, TMPDIR: tmp, TSX_DISABLE_CACHE: '1' };
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const [packed] = JSON.parse(npm(['pack', '--json', '--silent', '--pack-destination', dir], projectRoot)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const tarball = path.join(dir, packed!.filename);
  const install = path.join(dir, 'install');
  await mkdir(install);
  await writeFile(path.join(install, 'package.json'), '{"name":"install-check","private":true}\n');
  try {
    npm(['install', ...QUIET, '--prefer-offline', '--fetch-retries=1', '--fetch-retry-mintimeout=1000', tarball], install);
  } catch (online) {
    // No registry (a laptop offline): the same install from a copy of the user's own cache,
    // which is only read.
    const userCache = path.join(os.homedir(), '.npm', '_cacache');
    if (!existsSync(userCache)) throw online;
    cpSync(userCache, path.join(npmCache, '_cacache'), { recursive: true });
    npm(['install', ...QUIET, '--offline', tarball], install);
  }
  return {
    dir,
    tarball,
    files: packed!.files.map((file) => file.path),
    binPath: path.join(install, 'node_modules', '.bin', 'parallel-llm-mcp'),
    npmCache,
    tmp,
  };
}

/** The packages a cold `npx -y --package=...` installed in `npmCache`, scoped ones included. */
export function packagesNpxInstalled(npmCache: string): string[] {
  const npx = path.join(npmCache, '_npx');
  return readdirSync(npx).flatMap((install) => {
    const nodeModules = path.join(npx, install, 'node_modules');
    return readdirSync(nodeModules)
      .filter((entry) => !entry.startsWith('.'))
      .flatMap((entry) => (entry.startsWith('@') ? readdirSync(path.join(nodeModules, entry)).map((name) => `${entry}/${name}`) : [entry]));
  });
}
