import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const projectRoot = path.resolve(import.meta.dirname, '../..');

export interface Installed {
  /** The temporary folder holding the tarball and the install. */
  dir: string;
  tarball: string;
  /** The bin as `npm install parallel-llm-mcp-<v>.tgz` puts it. */
  binPath: string;
}

/** Packs the package as npm would publish it and installs the tarball into a fresh folder. */
export async function packAndInstall(): Promise<Installed> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-pack-'));
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  npm(['pack', '--silent', '--pack-destination', dir], projectRoot);
  const tarball = path.join(dir, (await readdir(dir)).find((name) => name.endsWith('.tgz'))!);
  const install = path.join(dir, 'install');
  await mkdir(install);
  await writeFile(path.join(install, 'package.json'), '{"name":"install-check","private":true}\n');
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], install);
  return { dir, tarball, binPath: path.join(install, 'node_modules', '.bin', 'parallel-llm-mcp') };
}
