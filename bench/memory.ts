/**
 * Memory: the peak resident set (the kernel's VmHWM) of a server process answering 8 calls at
 * once, each of 5 candidates answering 2 MiB (80 MiB received). Each side runs in a fresh
 * process per round; the sides take turns; medians of BENCH_ROUNDS (3) each.
 */
import { assertAnswered, connect, freshPrompt, interleaved, median, processPrompt, report, round, rssMiB, serversUnderTest, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const CALLS = 8;
const ANSWER_BYTES = 2 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MIB = 150;

const fake = await startFakeOpenRouter();
const models = ['m/1', 'm/2', 'm/3', 'm/4', 'm/5'];
models.forEach((model, i) => fake.on(model, { answer: String(i).repeat(ANSWER_BYTES), delayMs: 50, chunks: 64 }));
fake.on('m/synth', { answer: 'synthesized', delayMs: 50 });
const servers = await serversUnderTest();
const idle: Record<string, number[]> = { ours: [], reference: [] };

async function peakRss(side: 'ours' | 'reference'): Promise<number> {
  const env = serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'm/synth' });
  const session = await connect(servers[side], env);
  idle[side]!.push(await rssMiB(session.pid!, 'VmRSS'));
  const calls = Array.from({ length: CALLS }, () => processPrompt(session, { prompt: freshPrompt('memory') }, { timeout: 300_000 }));
  for (const call of await Promise.all(calls)) assertAnswered(session, call, 'a memory call');
  const peak = await rssMiB(session.pid!, 'VmHWM');
  await session.close();
  return peak;
}

const peaks = await interleaved(ROUNDS, ['ours', 'reference'], peakRss);
const largestSynthesisRequestChars = Math.max(...fake.requestsFor('m/synth').map((request) => JSON.stringify(request.body).length));
await fake.close();
await servers.cleanup();

const [oursMiB, referenceMiB] = [median(peaks.ours), median(peaks.reference)];
await report('memory', {
  calls: CALLS,
  candidateAnswerMiB: ANSWER_BYTES / 2 ** 20,
  dataReceivedMiB: (CALLS * models.length * ANSWER_BYTES) / 2 ** 20,
  rows: [
    {
      figure: `peak RSS, ${CALLS} calls at once × ${models.length} answers of 2 MiB, median`,
      unit: 'MiB',
      ours: round(oursMiB),
      reference: round(referenceMiB),
      target: `≤ ${TARGET_MIB}`,
      met: oursMiB <= TARGET_MIB,
    },
  ],
  peakRssMiB: { ours: peaks.ours.map((peak) => round(peak)), reference: peaks.reference.map((peak) => round(peak)) },
  idleRssMiB: { ours: round(median(idle.ours!)), reference: round(median(idle.reference!)) },
  largestSynthesisRequestChars,
});
