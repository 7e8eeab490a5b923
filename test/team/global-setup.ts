import { rm } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { buildCli } from './build-cli.js';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared test cluster's maintenance database; each test file makes a database of its own in it. */
    pgUrl: string;
    /** The bin built from the sources with the team package beside it (build-cli.ts). */
    cliDir: string;
  }
}

/** One Postgres and one build for the whole `team` project, removed at the end whatever the tests did. */
export default async function setup(project: TestProject) {
  const [postgres, cliDir] = await Promise.allSettled([startPostgres(), buildCli()]);
  const teardown = async () => {
    if (postgres.status === 'fulfilled') await postgres.value.remove();
    if (cliDir.status === 'fulfilled') await rm(cliDir.value, { recursive: true, force: true });
  };
  if (postgres.status === 'rejected' || cliDir.status === 'rejected') {
    await teardown();
    throw postgres.status === 'rejected' ? postgres.reason : (cliDir as PromiseRejectedResult).reason;
  }
  project.provide('pgUrl', postgres.value.url);
  project.provide('cliDir', cliDir.value);
  return teardown;
}
