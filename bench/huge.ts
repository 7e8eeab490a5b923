/**
 * Huge answers: one call of ten models, each streaming a 450 MB answer in 64-character events
 * (4.5 GB offered, about 14 GB of SSE). Each answer must stop at the stored-answer cap (the
 * request aborted there, the answer kept and marked truncated), every process of ours must
 * live through it, and their summed peak resident set is reported. Ours alone: the naive
 * reference holds every answer whole and cannot survive it.
 */
import { connect, freshPrompt, installedBin, processPrompt, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';
import { pidsRunning, productPaths, samplePeakRss } from './procs.js';
import { piecesOf, prose, streamEvents } from './streams.js';

const MODELS = 10;
const ANSWER_MB = 450;
const TARGET_MIB = 150;

const fake = await startFakeOpenRouter();
const models = Array.from({ length: MODELS }, (_, i) => `huge/${i + 1}`);
// One megabyte of answer as events, sent 450 times: the fake holds one block, not the stream.
const [opening, ...rest] = streamEvents('huge', piecesOf(prose(1_000_000), 64));
const ending = rest.splice(-2).join('');
const block = Buffer.from(rest.join(''));
for (const model of models)
  fake.on(model, { raw: [Buffer.from(opening!), ...Array<Buffer>(ANSWER_MB).fill(block), Buffer.from(ending)], pauseMs: 0 });
fake.on('huge/synth', { answer: 'synthesized' });

const { binPath, cleanup } = await installedBin();
const paths = await productPaths(binPath);
const env = serverEnv(fake, await tempOutputDir(), {
  PARALLEL_LLM_MODELS: models.join(','),
  PARALLEL_LLM_SYNTHESIZER_MODEL: 'huge/synth',
  PARALLEL_LLM_MAX_CONCURRENCY: String(MODELS),
});
const session = await connect({ command: process.execPath, args: [binPath] }, env);
const sampler = samplePeakRss(paths);
const started = performance.now();
const { result, data } = await processPrompt(session, { prompt: freshPrompt('huge') }, { timeout: 600_000 });
const ms = performance.now() - started;
const { peakMiB, pids } = await sampler.stop();
// Every process of ours that took part (the server and its run host) is still there.
const running = await pidsRunning(paths);
const alive = pids.length > 0 && pids.every((pid) => running.includes(pid));
// The server still answers after it.
const after = await session.client.ping().then(
  () => true,
  () => false,
);
await session.close();
await fake.close();
await cleanup();

const candidates = (data as { models?: Array<{ status: string; chars?: number | null; truncated?: boolean }> }).models ?? [];
const capped = candidates.filter((candidate) => candidate.status === 'answered' && candidate.truncated);
const met = !result.isError && alive && after && capped.length === MODELS && peakMiB <= TARGET_MIB;
process.stderr.write(
  `${round(ms / 1000)} s; ${capped.length} of ${MODELS} answers capped; alive: ${alive && after}; peak ${round(peakMiB)} MiB\n`,
);
await report('huge', {
  models: MODELS,
  offeredMBEach: ANSWER_MB,
  seconds: round(ms / 1000),
  status: data.status,
  alive: alive && after,
  answers: candidates.map((candidate) => ({ status: candidate.status, chars: candidate.chars, truncated: candidate.truncated })),
  rows: [
    {
      figure: `one call, ${MODELS} answers of ${ANSWER_MB} MB: peak RSS of all processes (answers capped: ${capped.length} of ${MODELS}; processes alive: ${alive && after ? 'yes' : 'no'})`,
      unit: 'MiB',
      ours: round(peakMiB),
      reference: null,
      target: `≤ ${TARGET_MIB}, capped, alive`,
      met,
    },
  ],
});
