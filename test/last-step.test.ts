import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { priceCatalogFor } from '../src/openrouter/price-catalog.js';
import { createLimiter } from '../src/run/limiter.js';
import type { RunRecord } from '../src/run/record.js';
import { runRequest } from '../src/mcp/run-request.js';
import type { Run } from '../src/run/run.js';
import { Runs } from '../src/run/runs.js';
import { RunStore, type RunFolder } from '../src/store/run-store.js';
import { agreeingSynthesizer } from './support/agreeing-synthesizer.js';
import { silentLogger, testClient } from './support/client.js';
import { startFakeOpenRouter, VALID_KEY, type Behaviour } from './support/fake-openrouter.js';
import { tempDir } from './support/harness.js';
import { waitFor } from './support/wait.js';

/**
 * The last step starts once every answer's file is kept, since a trimmed answer's marker names
 * its file; the journal never counts an answer before its file is there.
 */
const fake = await startFakeOpenRouter();
const client = testClient(fake.url);
afterAll(async () => {
  await client.close();
  await fake.close();
});

/** A store on a real folder whose answer files (those `held` names) are held back: each is given its name only after `release`. */
class HeldAnswers extends RunStore {
  release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  constructor(
    root: string,
    private readonly held: (fileName: string) => boolean,
  ) {
    super(root);
  }

  override async createRun(name?: string): Promise<RunFolder> {
    const folder = await super.createRun(name);
    const { released, held } = this;
    return new Proxy(folder, {
      get(target, property) {
        if (property === 'writer') {
          return (fileName: string) => {
            const writer = target.writer(fileName);
            const finish = async () => {
              await released;
              return writer.finish();
            };
            return held(fileName) ? { write: (text: string) => writer.write(text), discard: () => writer.discard(), finish } : writer;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

/** A run of models `${prefix}/a` (answering `answer`) and, with `second`, `${prefix}/b` after it, its answer files held as `held` says. */
async function startRun(
  prefix: string,
  answer: string,
  options: {
    env?: Record<string, string>;
    second?: boolean;
    held?: (fileName: string) => boolean;
    synth?: Behaviour;
  } = {},
) {
  const { env = {}, second = false, held = () => true, synth = agreeingSynthesizer('merged', { delayMs: 10 }) } = options;
  fake.on(`${prefix}/a`, { answer, delayMs: 10 });
  fake.on(`${prefix}/b`, { answer: 'b says', delayMs: 150 });
  fake.on(`${prefix}/synth`, synth);
  const store = new HeldAnswers(await tempDir(), held);
  const config = loadConfig({
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: store.rootDir,
    PARALLEL_LLM_MODELS: second ? `${prefix}/a,${prefix}/b` : `${prefix}/a`,
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
  it('waits for the file of an answer the synthesis prompt trims, since its marker names the file', async () => {
    const long = 'x'.repeat(30_000);
    const env = { PARALLEL_LLM_MAX_PROMPT_CHARS: '1000', PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '21000' };
    const { store, run, synthRequests } = await startRun('trimmed', long, { env });
    await waitFor(() => fake.requestsFor('trimmed/a').length === 1);
    // Real time: only time passing shows that the synthesizer is not asked before the file is saved.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(synthRequests()).toHaveLength(0);

    store.release();
    await run.settled;
    const prompt = JSON.stringify(synthRequests()[0]!.body);
    expect(prompt).toContain(`the full answer is saved in ${path.join(store.rootDir, run.id, 'candidate-1_trimmed_a.md')}`);
  });

  it('never journals an answer whose file is still being saved: another candidate’s step shows it waiting', async () => {
    const { store, run, journal } = await startRun('settling', 'a says', { second: true, held: (name) => name.startsWith('candidate-1_') });
    await waitFor(async () => (await journal().catch(() => undefined))?.candidates[1]?.status === 'answered');
    expect((await journal()).candidates.map((candidate) => candidate.status)).toEqual(['waiting', 'answered']);

    store.release();
    await run.settled;
    expect((await journal()).candidates).toMatchObject([{ status: 'answered', file: 'candidate-1_settling_a.md' }, { status: 'answered' }]);
  });
});
