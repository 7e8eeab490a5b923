import path from 'node:path';
import { VALID_KEY, type FakeOpenRouter } from './fake-openrouter.js';

/**
 * The environment a user's MCP client config would give the server, pointed at the fake. The
 * run host lives in the output folder (so each test has its own, removed with the folder) and
 * exits soon after its last run.
 */
export function serverEnv(fake: FakeOpenRouter, outputDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: outputDir,
    PARALLEL_LLM_HOST_DIR: path.join(outputDir, '.host'),
    PARALLEL_LLM_HOST_IDLE_MS: '3000',
    ...extra,
  };
}
