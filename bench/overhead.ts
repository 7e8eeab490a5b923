/**
 * Overhead: five candidates answering in 100-500 ms and a 100 ms synthesizer make an ideal
 * wall time of 600 ms; what a call takes on top is the overhead. Median of 20 calls.
 * The same requests made straight from an OpenRouterClient, with no server between, show
 * how much of that the fake upstream and the HTTP exchanges themselves take.
 */
import { pino } from 'pino';
import { OpenRouterClient } from '../src/openrouter/client.js';
import { VALID_KEY } from '../test/support/fake-openrouter.js';
import { connect, installedBin, median, percentile, processPrompt, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const IDEAL_MS = 600;

const fake = await startFakeOpenRouter();
const models = ['o/100', 'o/200', 'o/300', 'o/400', 'o/500'];
models.forEach((model, i) => fake.on(model, { answer: `answer ${i}`, delayMs: 100 * (i + 1) }));
fake.on('o/synth', { answer: 'synthesized', delayMs: 100 });
const { binPath, cleanup } = await installedBin();

/** Median overhead of CALLS calls through the installed server, after two warm-up calls. */
async function overheadThroughServer(extraEnv: Record<string, string>): Promise<number[]> {
  const env = serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'o/synth', ...extraEnv });
  const session = await connect(binPath, env);
  for (let i = 0; i < 2; i++) await processPrompt(session, { prompt: 'warm-up' });
  const overheads: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const { data } = await processPrompt(session, { prompt: `call ${i}` });
    if (data.status !== 'complete') throw new Error(`call ${i} ended ${data.status}`);
    overheads.push(performance.now() - started - IDEAL_MS);
  }
  await session.close();
  return overheads;
}

const overheads = await overheadThroughServer({});
const withoutFiles = await overheadThroughServer({ PARALLEL_LLM_SAVE_OUTPUTS: 'false' });

const direct = new OpenRouterClient({ apiKey: VALID_KEY, baseUrl: fake.url, timeoutMs: 10_000, idleTimeoutMs: 5000, maxConnections: 5, logger: pino({ level: 'silent' }) });
const chat = (model: string) => ({ model, prompt: 'q', temperature: 0.7, maxTokens: 100 });
const baseline: number[] = [];
for (let i = 0; i < CALLS + 2; i++) {
  const started = performance.now();
  await Promise.all(models.map((model) => direct.complete(chat(model))));
  await direct.complete(chat('o/synth'));
  if (i >= 2) baseline.push(performance.now() - started - IDEAL_MS);
}
await direct.close();
await fake.close();
await cleanup();
await report('overhead', {
  calls: CALLS,
  idealMs: IDEAL_MS,
  medianOverheadMs: round(median(overheads)),
  upstreamAloneMedianMs: round(median(baseline)),
  serverShareMedianMs: round(median(overheads) - median(baseline)),
  withSavingOffMedianMs: round(median(withoutFiles)),
  serverShareWithSavingOffMedianMs: round(median(withoutFiles) - median(baseline)),
  p90OverheadMs: round(percentile(overheads, 90)),
  minOverheadMs: round(Math.min(...overheads)),
  maxOverheadMs: round(Math.max(...overheads)),
  goalMs: 3,
});
