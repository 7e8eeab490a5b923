import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { priceCatalogFor } from '../src/openrouter/price-catalog.js';
import { createLimiter } from '../src/run/limiter.js';
import type { RunRecord } from '../src/run/record.js';
import { runRequest } from '../src/run/request.js';
import type { Run } from '../src/run/run.js';
import { Runs } from '../src/run/runs.js';
import { RunStore, type RunFolder } from '../src/store/run-store.js';
import { silentLogger, testClient } from './support/client.js';
import { startFakeOpenRouter, VALID_KEY } from './support/fake-openrouter.js';
import { tempDir } from './support/harness.js';
import { waitFor } from './support/wait.js';

/**
 * The last step does not wait for the disk: an answer goes to the synthesizer once it has
 * streamed in, while its file is still being saved, unless the synthesis prompt must name that
 * file (a trimmed answer). The run ends only once every file is on disk and named.
 */
const fake = await startFakeOpenRouter();
const client = testClient(fake.url);
afterAll(async () => {
  await client.close();
  await fake.close();
});

/** A store on a real folder whose answer files are held back: each one is given its name only after `release`. */
class HeldAnswers extends RunStore {
  release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  override async createRun(name?: string): Promise<RunFolder> {
    const folder = await super.createRun(name);
    const released = this.released;
    return new Proxy(folder, {
      get(target, property) {
        if (property === 'writer') {
          return (fileName: string) => {
            const writer = target.writer(fileName);
            return { ...writer, finish: async () => (await released, writer.finish()) };
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

async function startRun(prefix: string, answer: string, env: Record<string, string> = {}) {
  fake.on(`${prefix}/a`, { answer, delayMs: 10 });
  fake.on(`${prefix}/synth`, { answer: 'merged', delayMs: 10 });
  const store = new HeldAnswers(await tempDir());
  const config = loadConfig({
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: store.rootDir,
    PARALLEL_LLM_MODELS: `${prefix}/a`,
    PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth`,
    ...env,
  });
  const deps = {
    client,
    limiter: createLimiter(5),
    logger: silentLogger,
    synthesisMaxChars: config.synthesisMaxChars,
    keepChars: config.synthesisMaxChars,
  };
  const runs = new Runs({
    deps,
    store,
    upstream: prefix,
    logger: silentLogger,
    redact: (text) => text,
    admission: { prices: priceCatalogFor(client), maxPromptChars: config.maxPromptChars, synthesisMaxChars: config.synthesisMaxChars },
  });
  const started = await runs.start(runRequest('q', {}, config));
  if (!('run' in started) || !('live' in started.run)) throw new Error('no run started');
  const run: Run = started.run.live;
  const journal = async () => JSON.parse(await readFile(path.join(store.rootDir, run.id, 'run.json'), 'utf8')) as RunRecord;
  return { store, run, journal, synthRequests: () => fake.requestsFor(`${prefix}/synth`) };
}

describe('the last step of a run', () => {
  it('asks the synthesizer while the answer’s file is still being saved, and ends once the journal names it', async () => {
    const { store, run, journal, synthRequests } = await startRun('held', 'a says');
    await waitFor(() => synthRequests().length === 1 && run.state().synthesis.status === 'answered');
    expect(run.status).toBe('running');
    expect((await journal()).candidates[0]).not.toHaveProperty('file');

    store.release();
    await run.settled;
    const ended = await journal();
    expect(ended).toMatchObject({
      status: 'complete',
      candidates: [{ status: 'answered', file: 'candidate-1_held_a.md' }],
      synthesis: { status: 'answered', file: 'final.md' },
    });
    expect(await readFile(path.join(store.rootDir, run.id, 'candidate-1_held_a.md'), 'utf8')).toBe('a says');
  });

  it('waits for the file of an answer the synthesis prompt trims, since its marker names the file', async () => {
    const long = 'x'.repeat(30_000);
    const env = { PARALLEL_LLM_MAX_PROMPT_CHARS: '1000', PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '21000' };
    const { store, run, synthRequests } = await startRun('trimmed', long, env);
    await waitFor(() => fake.requestsFor('trimmed/a').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(synthRequests()).toHaveLength(0);

    store.release();
    await run.settled;
    const prompt = JSON.stringify(synthRequests()[0]!.body);
    expect(prompt).toContain(`the full answer is saved in ${path.join(store.rootDir, run.id, 'candidate-1_trimmed_a.md')}`);
  });
});
