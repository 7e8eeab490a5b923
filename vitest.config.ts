import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // The end-to-end suite packs and installs the package once; see test/e2e/global-setup.ts.
    globalSetup: ['test/e2e/global-setup.ts'],
  },
});
