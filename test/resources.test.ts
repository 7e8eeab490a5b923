import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenRouter, type FakeOpenRouter } from './support/fake-openrouter.js';
import { callTool, startHarness, type Harness } from './support/harness.js';

/** Runs as MCP resources: a user finds a run in any client that shows resources. */
let fake: FakeOpenRouter;
let harness: Harness;

beforeAll(async () => {
  fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
  fake.on('res/one', { answer: 'one' });
  fake.on('res/synth', { answer: 'the merged answer' });
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await harness?.close();
});

describe('runs as resources', () => {
  it('lists recent runs, newest first, each titled by its prompt and status and described by its model count ("1 model"), and reads each as its result', async () => {
    harness = await startHarness(fake, { PARALLEL_LLM_MODELS: 'res/one', PARALLEL_LLM_SYNTHESIZER_MODEL: 'res/synth' });
    let changed = 0;
    harness.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++);
    const first = await callTool(harness, 'process_prompt', { prompt: 'First question\nwith details' });
    const second = await callTool(harness, 'process_prompt', { prompt: 'Second question' });
    const { resources } = await harness.client.listResources();
    expect(resources.map((resource) => resource.name)).toEqual([second.data!.run_id, first.data!.run_id]);
    expect(resources[1]).toMatchObject({
      uri: `parallel-llm://runs/${first.data!.run_id}`,
      title: 'First question (complete)',
      mimeType: 'text/markdown',
    });
    expect(resources[1]!.description).toMatch(/^1 model, started /);
    const { contents } = await harness.client.readResource({ uri: resources[1]!.uri });
    expect(contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect((contents[0] as { text: string }).text).toContain('the merged answer');
    expect(changed).toBeGreaterThanOrEqual(2);
  });

  it('reads a run with its answer in the text even for a client whose model reads only structured results', async () => {
    harness = await startHarness(
      fake,
      { PARALLEL_LLM_MODELS: 'res/one', PARALLEL_LLM_SYNTHESIZER_MODEL: 'res/synth' },
      { clientName: 'claude-code' },
    );
    const { data } = await callTool(harness, 'process_prompt', { prompt: 'For Claude Code' });
    const { contents } = await harness.client.readResource({ uri: `parallel-llm://runs/${data!.run_id}` });
    expect((contents[0] as { text: string }).text).toContain('the merged answer');
  });

  it('refuses to read a run that does not exist', async () => {
    harness = await startHarness(fake);
    await expect(harness.client.readResource({ uri: 'parallel-llm://runs/2020-01-01T00-00-00.000Z_00000000' })).rejects.toThrow(/No run/);
  });
});
