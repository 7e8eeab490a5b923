import { loadConfig } from '../../src/config/config.js';
import { priceCatalogFor } from '../../src/openrouter/price-catalog.js';
import { createLimiter } from '../../src/run/limiter.js';
import { runRequest } from '../../src/mcp/run-request.js';
import { Runs } from '../../src/run/runs.js';
import type { RunStorage } from '../../src/store/store.js';
import { silentLogger, testClient } from '../support/client.js';
import { VALID_KEY } from '../support/fake-openrouter.js';

/**
 * The run lifecycle of src/run on a given store, as src/run/local.ts's localRuns builds it for the output
 * folder: models `${prefix}/a`, `/b` and `/c`, synthesized by `${prefix}/synth`, asked of the fake
 * OpenRouter at `fakeUrl`. Returns the runs, the request, and a `close` that lets go of everything.
 */
export function teamRuns(store: RunStorage, fakeUrl: string, prefix: string) {
  const config = loadConfig({
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fakeUrl,
    PARALLEL_LLM_MODELS: ['a', 'b', 'c'].map((model) => `${prefix}/${model}`).join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth`,
  });
  const client = testClient(fakeUrl);
  const runs = new Runs({
    deps: {
      client,
      limiter: createLimiter(5),
      logger: silentLogger,
      synthesisMaxChars: config.synthesisMaxChars,
      keepChars: config.synthesisMaxChars,
    },
    store,
    upstream: prefix,
    logger: silentLogger,
    redact: (text) => text,
    admission: { prices: priceCatalogFor(client), maxPromptChars: config.maxPromptChars, synthesisMaxChars: config.synthesisMaxChars },
  });
  const close = async () => {
    await runs.interruptAll();
    await client.close();
  };
  return { runs, request: runRequest(`a question for ${prefix}`, {}, config), close };
}
