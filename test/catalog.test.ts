import { afterEach, describe, expect, it } from 'vitest';
import { fetchKeyInfo, fetchModels } from '../src/openrouter/catalog.js';
import type { OpenRouterClient } from '../src/openrouter/client.js';
import { modelRow, startCatalogServer, type CatalogServer } from './support/catalog-server.js';
import { testClient } from './support/client.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';

const closers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((closer) => closer.close()));
});

function clientFor(server: { url: string }, apiKey?: string): OpenRouterClient {
  const client = testClient(server.url, apiKey ? { apiKey } : {});
  closers.push(client);
  return client;
}

async function catalog(options: Parameters<typeof startCatalogServer>[0]): Promise<CatalogServer> {
  const server = await startCatalogServer(options);
  closers.push(server);
  return server;
}

describe('the key and model endpoints doctor reads', () => {
  it('reads the key description, and refuses a wrong key with OpenRouter’s message', async () => {
    const fake = await startFakeOpenRouter({ models: ['openai/gpt-5.3-codex'] });
    closers.push(fake);
    await expect(fetchKeyInfo(clientFor(fake))).resolves.toMatchObject({ label: 'test key', limit_remaining: 7.5 });
    await expect(fetchKeyInfo(clientFor(fake, 'sk-wrong'))).rejects.toMatchObject({
      kind: 'http',
      status: 401,
      message: 'User not found.',
    });
  });

  it('reads each model row with its alias target, creation time and expiration date', async () => {
    const server = await catalog({
      models: [
        modelRow('~x-ai/grok-latest', { alias_target: 'x-ai/grok-4.3' }),
        modelRow('x-ai/grok-4.3', { created: '2026-05-01' }),
        modelRow('openai/gpt-5.1-codex', { expiration_date: '2026-07-15' }),
      ],
    });
    const rows = await fetchModels(clientFor(server));

    expect(rows.map((row) => row.id)).toEqual(['~x-ai/grok-latest', 'x-ai/grok-4.3', 'openai/gpt-5.1-codex']);
    expect(rows[0]!.alias_target).toMatchObject({ slug: 'x-ai/grok-4.3' });
    expect(rows[1]!.created).toBe(Date.parse('2026-05-01') / 1000);
    expect(rows[2]!.expiration_date).toBe('2026-07-15');
  });

  it('reads the bare list another OpenAI-compatible server sends (only ids)', async () => {
    const server = await catalog({ models: [{ id: 'local-model', object: 'model', owned_by: 'me' }] });
    await expect(fetchModels(clientFor(server))).resolves.toMatchObject([{ id: 'local-model' }]);
  });

  it('fails with status 404 where the server has no such endpoint, so doctor can skip the check', async () => {
    const server = await catalog({ key: 'missing', models: 'missing' });
    await expect(fetchKeyInfo(clientFor(server))).rejects.toMatchObject({ kind: 'http', status: 404 });
    await expect(fetchModels(clientFor(server))).rejects.toMatchObject({ kind: 'http', status: 404 });
  });
});
