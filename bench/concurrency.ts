/** Concurrency: 50 simultaneous calls of 5 models; the process-wide limit must hold. */
import { connect, installedBin, percentile, processPrompt, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const LIMIT = 5;

const fake = await startFakeOpenRouter();
const models = ['c/1', 'c/2', 'c/3', 'c/4', 'c/5'];
for (const [i, model] of models.entries()) fake.on(model, { answer: `answer ${i}`, delayMs: 50 + 25 * i });
fake.on('c/synth', { answer: 'synthesized', delayMs: 50 });
const { binPath, cleanup } = await installedBin();
const env = serverEnv(fake, await tempOutputDir(), {
  PARALLEL_LLM_MODELS: models.join(','),
  PARALLEL_LLM_SYNTHESIZER_MODEL: 'c/synth',
  PARALLEL_LLM_MAX_CONCURRENCY: String(LIMIT),
  PARALLEL_LLM_BUDGET_MS: '600000',
});
const session = await connect(binPath, env);
await processPrompt(session, { prompt: 'warm-up' });
fake.maxInFlight = 0;

const started = performance.now();
const walls = await Promise.all(
  Array.from({ length: CALLS }, async (_, i) => {
    const callStarted = performance.now();
    const { data } = await processPrompt(session, { prompt: `call ${i}` }, { timeout: 600_000 });
    if (data.status !== 'complete') throw new Error(`call ${i} ended ${data.status}`);
    return performance.now() - callStarted;
  }),
);
const totalMs = performance.now() - started;
await session.close();
await fake.close();
await cleanup();
await report('concurrency', {
  calls: CALLS,
  modelsPerCall: models.length,
  upstreamRequests: CALLS * (models.length + 1),
  concurrencyLimit: LIMIT,
  maxUpstreamInFlight: fake.maxInFlight,
  limitHonoured: fake.maxInFlight <= LIMIT,
  p50Ms: round(percentile(walls, 50)),
  p99Ms: round(percentile(walls, 99)),
  totalMs: round(totalMs),
});
