import { afterAll, describe, expect, it } from 'vitest';
import { Deadline } from '../src/clock.js';
import { RunHostClient } from '../src/host/client.js';
import { RunHandle } from '../src/run/handle.js';
import { runRequest } from '../src/mcp/run-request.js';
import { silentLogger } from './support/client.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { harnessesClosedAfterEach, mustStart } from './support/harness.js';

/** Where a client's runs execute: the decision RunHostClient makes, with the way to a host given by the test. */
const fake = await startFakeOpenRouter();
const start = harnessesClosedAfterEach();
afterAll(() => fake.close());

fake.on('where/one', { answer: 'one', delayMs: 10 });
fake.on('where/synth', { answer: 'merged', delayMs: 10 });
const env = { PARALLEL_LLM_MODELS: 'where/one', PARALLEL_LLM_SYNTHESIZER_MODEL: 'where/synth' };

describe('where a client’s runs execute', () => {
  it('reads without starting a host, and where no host can start runs here, says so once, and asks no more', async () => {
    const { config } = await start(fake, env);
    const asked: boolean[] = [];
    const client = new RunHostClient(config, silentLogger, '0.0.0-test', async (mayStart) => {
      asked.push(mayStart);
      return { unavailable: 'no sockets here' };
    });
    try {
      expect((await client.watch('no-such-run', { waitMs: 0 })).ok).toBe(false);
      expect(client.notice).toBeUndefined();
      const { id } = mustStart(await client.start(runRequest('q', {}, config)));
      expect(client.notice).toMatch(/^Runs execute in this server process, since the run host could not start \(no sockets here\)/);
      expect((await new RunHandle(id, client).wait({ deadline: Deadline.after(5000) })).status).toBe('complete');
      expect(asked).toEqual([false, true]);
    } finally {
      await client.close();
    }
  });
});
