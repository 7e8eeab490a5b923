import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most tests wait on child processes and sockets, not the CPU: more workers than the 2 cores.
    maxWorkers: 3,
    projects: [
      {
        test: { name: 'unit', include: ['test/*.test.ts'], setupFiles: ['test/support/cleanup.ts'], testTimeout: 20_000 },
      },
      {
        // The run pages in Debian's chromium: the MCP App in a test host, and `view`'s pages.
        test: {
          name: 'browser',
          include: ['test/browser/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Team mode against a real Postgres that the global setup starts and removes (test/team/postgres.ts).
        test: {
          name: 'team',
          include: ['test/team/*.test.ts'],
          globalSetup: ['test/team/global-setup.ts'],
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Packs the package, installs the tarball in a temporary folder and drives the installed bin.
        test: {
          name: 'e2e',
          include: ['test/e2e/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 30_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
