import { VALID_KEY, type FakeOpenRouter } from './fake-openrouter.js';

/** The environment a user's MCP client config would give the server, pointed at the fake. */
export function serverEnv(fake: FakeOpenRouter, outputDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: outputDir,
    ...extra,
  };
}
