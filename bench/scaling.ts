/**
 * Scaling: 50 calls of 20 models each at once (1,050 upstream requests) against one call of 5
 * models alone. Candidates answer after 100-500 ms and the synthesizer after 100 ms, so every
 * call's ideal is 600 ms, and so is the ideal of the whole burst. The overhead per call of the
 * burst is what the burst takes beyond 600 ms, shared among its calls; it is compared with
 * the overhead of the single call. Both servers get PARALLEL_LLM_MAX_CONCURRENCY=1000 (the
 * reference has no limit at all), so that the figure measures the server's own costs, not a
 * queue the limit imposes on purpose. The servers' CPU time per call is reported as well: it
 * is steadier than wall time on a shared machine. Each round, each side makes 3 single calls,
 * then one burst; sides take turns; BENCH_ROUNDS (3) rounds, after one warm-up call each.
 */
import {
  assertAnswered,
  connect,
  cpuMs,
  freshPrompt,
  interleaved,
  median,
  processPrompt,
  report,
  round,
  serversUnderTest,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
  type Session,
} from './lib.js';

const BURST_CALLS = Number(process.env.BENCH_CALLS ?? 50);
const BURST_MODELS = 20;
const SINGLE_MODELS = 5;
const SINGLE_CALLS_PER_ROUND = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDEAL_MS = 600;
const TARGET_RATIO = 2;

const fake = await startFakeOpenRouter();
/** `count` models answering at even steps from 100 to 500 ms. */
const modelsAnswering = (count: number) =>
  Array.from({ length: count }, (_, i) => {
    const model = `s${count}/${i + 1}`;
    fake.on(model, { answer: `answer ${i + 1}`, delayMs: Math.round(100 + (400 * i) / (count - 1)) });
    return model;
  });
const single = modelsAnswering(SINGLE_MODELS);
const burst = modelsAnswering(BURST_MODELS);
fake.on('s/synth', { answer: 'synthesized', delayMs: 100 });

const servers = await serversUnderTest();
const env = async () =>
  serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_SYNTHESIZER_MODEL: 's/synth', PARALLEL_LLM_MAX_CONCURRENCY: '1000' });
const sessions: Record<'ours' | 'reference', Session> = {
  ours: await connect(servers.ours, await env()),
  reference: await connect(servers.reference, await env()),
};

async function overheadOfCall(session: Session, models: string[]): Promise<number> {
  const started = performance.now();
  assertAnswered(session, await processPrompt(session, { prompt: freshPrompt('scaling'), models }, { timeout: 300_000 }), 'a scaling call');
  return performance.now() - started - IDEAL_MS;
}

const singles: Record<'ours' | 'reference', number[]> = { ours: [], reference: [] };
/** The server's CPU time over all single calls and over all bursts, to compare per call. */
const cpu = { ours: { single: 0, burst: 0 }, reference: { single: 0, burst: 0 } };
for (const session of Object.values(sessions)) await overheadOfCall(session, single); // loads and compiles the code paths
const bursts = await interleaved(ROUNDS, ['ours', 'reference'], async (side) => {
  const pid = sessions[side].pid!;
  let before = await cpuMs(pid);
  for (let i = 0; i < SINGLE_CALLS_PER_ROUND; i++) singles[side].push(await overheadOfCall(sessions[side], single));
  cpu[side].single += (await cpuMs(pid)) - before;
  before = await cpuMs(pid);
  const started = performance.now();
  await Promise.all(Array.from({ length: BURST_CALLS }, () => overheadOfCall(sessions[side], burst)));
  const overheadPerCall = (performance.now() - started - IDEAL_MS) / BURST_CALLS;
  cpu[side].burst += (await cpuMs(pid)) - before;
  return overheadPerCall;
});
await Promise.all(Object.values(sessions).map((session) => session.close()));
await fake.close();
await servers.cleanup();

const ratio = (side: 'ours' | 'reference') => median(bursts[side]) / median(singles[side]);
const burstCpuPerCall = (side: 'ours' | 'reference') => round(cpu[side].burst / (ROUNDS * BURST_CALLS));
await report('scaling', {
  rows: [
    {
      figure: `overhead per call, ${BURST_CALLS} calls × ${BURST_MODELS} models at once ÷ 1 call × ${SINGLE_MODELS} models`,
      unit: '×',
      ours: round(ratio('ours'), 2),
      reference: round(ratio('reference'), 2),
      target: `≤ ${TARGET_RATIO}`,
      met: ratio('ours') <= TARGET_RATIO,
    },
    {
      figure: `server CPU time per call in the burst (${BURST_MODELS} models + synthesis)`,
      unit: 'ms',
      ours: burstCpuPerCall('ours'),
      reference: burstCpuPerCall('reference'),
      target: '—',
    },
  ],
  singleCallOverheadMs: { ours: round(median(singles.ours)), reference: round(median(singles.reference)) },
  burstOverheadPerCallMs: { ours: bursts.ours.map((ms) => round(ms)), reference: bursts.reference.map((ms) => round(ms)) },
  singleCallServerCpuMs: {
    ours: round(cpu.ours.single / (ROUNDS * SINGLE_CALLS_PER_ROUND)),
    reference: round(cpu.reference.single / (ROUNDS * SINGLE_CALLS_PER_ROUND)),
  },
});
