/**
 * Overhead: five candidates answering in 100-500 ms and a 100 ms synthesizer make an ideal
 * wall time of 600 ms; what the server adds on top is the overhead. Median of 20 calls.
 */
import { connect, installedBin, median, percentile, processPrompt, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const IDEAL_MS = 600;

const fake = await startFakeOpenRouter();
const models = ['o/100', 'o/200', 'o/300', 'o/400', 'o/500'];
models.forEach((model, i) => fake.on(model, { answer: `answer ${i}`, delayMs: 100 * (i + 1) }));
fake.on('o/synth', { answer: 'synthesized', delayMs: 100 });
const { binPath, cleanup } = await installedBin();
const session = await connect(binPath, serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'o/synth' }));

for (let i = 0; i < 2; i++) await processPrompt(session, { prompt: 'warm-up' });
const overheads: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const started = performance.now();
  const { data } = await processPrompt(session, { prompt: `call ${i}` });
  if (data.status !== 'complete') throw new Error(`call ${i} ended ${data.status}`);
  overheads.push(performance.now() - started - IDEAL_MS);
}
await session.close();
await fake.close();
await cleanup();
await report('overhead', {
  calls: CALLS,
  idealMs: IDEAL_MS,
  medianOverheadMs: round(median(overheads)),
  p90OverheadMs: round(percentile(overheads, 90)),
  minOverheadMs: round(Math.min(...overheads)),
  maxOverheadMs: round(Math.max(...overheads)),
  goalMs: 3,
});
