import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { packAndInstall } from '../support/install.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The installed bin, as `npm install parallel-llm-mcp-<v>.tgz` puts it. */
    binPath: string;
    tarball: string;
    /** The files in the tarball. */
    packedFiles: string[];
    /** A temporary npm cache for npm and npx, removed with the install. */
    npmCache: string;
    /** The temporary folder the pack and the install were given. */
    packTmp: string;
  }
}

export default async function setup(project: TestProject) {
  const installed = await packAndInstall();
  project.provide('binPath', installed.binPath);
  project.provide('tarball', installed.tarball);
  project.provide('packedFiles', installed.files);
  project.provide('npmCache', installed.npmCache);
  project.provide('packTmp', installed.tmp);
  return async () => {
    await rm(installed.dir, { recursive: true, force: true });
  };
}
