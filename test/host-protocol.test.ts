import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../src/host/protocol.js';
import { lookupErrorSchema, outputs } from '../src/host/protocol-schemas.js';
import { HostRunService } from '../src/host/remote.js';
import { hostServer } from '../src/host/serve.js';
import { runRequest } from '../src/run/request.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { harnessesClosedAfterEach } from './support/harness.js';

/**
 * The run host's replies have the shapes src/host/protocol-schemas.ts declares: a face takes them as
 * they are (it speaks only to a host of its own version), so these tests are what holds the
 * host to them. The host's server runs over a real run service, driven by the SDK's Client.
 */
const fake = await startFakeOpenRouter();
const start = harnessesClosedAfterEach();
afterAll(() => fake.close());

fake.on('p/one', { answer: 'one', delayMs: 10 });
fake.on('p/two', { answer: 'two', delayMs: 30 });
fake.on('p/synth', { answer: 'merged ✓', delayMs: 10 });
const env = { PARALLEL_LLM_MODELS: 'p/one,p/two', PARALLEL_LLM_SYNTHESIZER_MODEL: 'p/synth' };

async function hostOverRuns() {
  const harness = await start(fake, env);
  const info = () => ({
    pid: process.pid,
    version: '0.0.0-test',
    started_at: new Date().toISOString(),
    running: 0,
    faces: 1,
    socket: 's',
    log: 'l',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await hostServer(harness.app.service, '0.0.0-test', info).connect(serverSide);
  const client = new Client({ name: 'face', version: '0.0.0-test' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const request = (prompt: string) => runRequest(prompt, {}, harness.config);
  return { client, call, request };
}

describe('the run host protocol', () => {
  it('answers every operation with the shape it declares', async () => {
    const { call, request } = await hostOverRuns();
    const started = await call(TOOLS.start, { request: request('shapes') });
    const { run_id } = outputs.start.parse(started.structuredContent) as { run_id: string };

    const running = await call(TOOLS.watch, { run_id, wait_ms: 0 });
    expect(outputs.watch.parse(running.structuredContent).state.run_id).toBe(run_id);
    const settled = await call(TOOLS.watch, { run_id, wait_ms: 10_000, until_settled: true, view_chars: 1000 });
    const watched = outputs.watch.parse(settled.structuredContent);
    expect(watched.state.status).toBe('complete');
    expect(watched.view?.answer).toBe('merged ✓');

    expect(outputs.view.parse((await call(TOOLS.view, { run_id, max_chars: 1000 })).structuredContent).answer).toBe('merged ✓');
    expect(outputs.list.parse((await call(TOOLS.list, { limit: 5 })).structuredContent).runs.map((run) => run.id)).toContain(run_id);
    expect(outputs.cancel.parse((await call(TOOLS.cancel, { run_id, reason: 'late' })).structuredContent).stopped).toBe(false);
    expect(outputs.info.parse((await call(TOOLS.info, {})).structuredContent).version).toBe('0.0.0-test');

    const missing = await call(TOOLS.view, { run_id: 'not-a-run', max_chars: 10 });
    expect(missing.isError).toBe(true);
    expect(lookupErrorSchema.parse(missing.structuredContent).error.kind).toBe('bad_id');
  });

  it("is what a face's run service reads: a run started, watched to its end, and viewed", async () => {
    const { client, request } = await hostOverRuns();
    const service = new HostRunService(client, () => Promise.reject(new Error('no second host in this test')));
    const started = await service.start(request('a face'));
    if ('refused' in started) throw new Error('refused');
    const watched = await service.watch(started.id, { waitMs: 10_000, untilSettled: true, viewChars: 1000 });
    expect(watched.ok && watched.value.state.status).toBe('complete');
    expect(watched.ok && watched.value.view?.answer).toBe('merged ✓');
    const viewed = await service.view(started.id, 1000);
    expect(viewed.ok && viewed.value.answer).toBe('merged ✓');
    expect(await service.view('not-a-run', 10)).toMatchObject({ ok: false, error: { kind: 'bad_id' } });
  });
});
