import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { packAndInstall } from '../support/install.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The installed bin, as `npm install parallel-llm-mcp-<v>.tgz` puts it. */
    binPath: string;
    tarball: string;
  }
}

export default async function setup(project: TestProject) {
  const installed = await packAndInstall();
  project.provide('binPath', installed.binPath);
  project.provide('tarball', installed.tarball);
  return async () => {
    await rm(installed.dir, { recursive: true, force: true });
  };
}
