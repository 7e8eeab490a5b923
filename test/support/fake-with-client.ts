import { afterAll, beforeAll } from 'vitest';
import type { ClientOptions, OpenRouterClient } from '../../src/openrouter/client.js';
import { testClient } from './client.js';
import { startFakeOpenRouter, type FakeOpenRouter } from './fake-openrouter.js';

/** A fake OpenRouter and a client pointed at it, started before the tests of the enclosing block and closed after them. */
export function fakeWithClient(overrides: Partial<ClientOptions> = {}): { fake: FakeOpenRouter; client: OpenRouterClient } {
  const context = {} as { fake: FakeOpenRouter; client: OpenRouterClient };
  beforeAll(async () => {
    context.fake = await startFakeOpenRouter();
    context.client = testClient(context.fake.url, overrides);
  });
  afterAll(async () => {
    await context.client.close();
    await context.fake.close();
  });
  return context;
}
