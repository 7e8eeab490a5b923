import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared test cluster's maintenance database; each test file makes a database of its own in it. */
    pgUrl: string;
  }
}

/** One Postgres for the whole `team` project, stopped and removed at the end whatever the tests did. */
export default async function setup(project: TestProject) {
  const postgres = await startPostgres();
  project.provide('pgUrl', postgres.url);
  return () => postgres.remove();
}
