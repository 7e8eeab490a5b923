import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The installed bin, as `npm install parallel-llm-mcp-<v>.tgz` puts it. */
    binPath: string;
    tarball: string;
  }
}

const root = path.resolve(import.meta.dirname, '../..');

/** Packs the package as npm would publish it and installs the tarball into a fresh folder. */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-e2e-'));
  const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  npm(['pack', '--silent', '--pack-destination', dir], root);
  const tarball = path.join(dir, (await readdir(dir)).find((name) => name.endsWith('.tgz'))!);
  const install = path.join(dir, 'install');
  await mkdir(install);
  await writeFile(path.join(install, 'package.json'), '{"name":"e2e-install","private":true}\n');
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], install);
  project.provide('binPath', path.join(install, 'node_modules', '.bin', 'parallel-llm-mcp'));
  project.provide('tarball', tarball);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
