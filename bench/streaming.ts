/**
 * Streaming: the server against the minimal streaming consumer (bench/reference/minimal-consumer.js)
 * and the naive non-streaming reference, on the same streams from the same fake, sides taking
 * turns in every round:
 * - one call of 5 models, each streaming 2 MiB of prose in 64-character events, and 8 such calls
 *   at once: wall time, and the CPU time of every process of each side;
 * - CPU per SSE event: one model streaming 10,000 events of 3-5 characters, less the same call
 *   with 10 events (the call's fixed cost), in one burst and paced (one event per network read,
 *   a millisecond apart, as a real model's tokens come). The naive server does not stream: it
 *   has no figure here.
 * Our server gets PARALLEL_LLM_MAX_CONCURRENCY=40, so that 8 calls × 5 models stream at once as
 * they do in the references, which have no limit. Medians of BENCH_ROUNDS (3).
 */
import path from 'node:path';
import {
  assertAnswered,
  connect,
  freshPrompt,
  installedBin,
  interleaved,
  median,
  processPrompt,
  report,
  round,
  serverEnv,
  startFakeOpenRouter,
  startMinimalConsumer,
  tempOutputDir,
  type Row,
} from './lib.js';
import { cpuNs, pidsRunning, productPaths } from './procs.js';
import { piecesOf, prose, serveStream } from './streams.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ANSWER_CHARS = 2 * 1024 * 1024;
const EVENTS = 10_000;
const FIXED_EVENTS = 10;
const WALL_TARGET = 1;
const CPU_TARGET = { ratio: 2, floorUs: 5 };

const fake = await startFakeOpenRouter();
const big = Array.from({ length: 5 }, (_, i) => `big/${i + 1}`);
for (const model of big) serveStream(fake, model, piecesOf(prose(ANSWER_CHARS), 64));
/** Events of 3 to 5 characters: a word, its space, a comma. */
const tinyPieces = (count: number) => Array.from({ length: count }, (_, i) => ['lor', 'em i', 'psum '][i % 3]!);
serveStream(fake, 'tiny/burst', tinyPieces(EVENTS));
serveStream(fake, 'tiny/burst-fixed', tinyPieces(FIXED_EVENTS));
serveStream(fake, 'tiny/paced', tinyPieces(EVENTS), { pauseMs: 1 });
serveStream(fake, 'tiny/paced-fixed', tinyPieces(FIXED_EVENTS), { pauseMs: 1 });
fake.on('stream/synth', { answer: 'synthesized' });

const { binPath, cleanup } = await installedBin();
const ourPaths = await productPaths(binPath);
const env = serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_SYNTHESIZER_MODEL: 'stream/synth', PARALLEL_LLM_MAX_CONCURRENCY: '40' });
const ours = await connect({ command: process.execPath, args: [binPath] }, env);
const naive = await connect({ command: process.execPath, args: [path.join(import.meta.dirname, 'reference', 'server.js')] }, env);
const minimal = await startMinimalConsumer(env);

type Side = 'ours' | 'minimal' | 'naive';
const pidsOf = async (side: Side) => (side === 'ours' ? pidsRunning(ourPaths) : [side === 'minimal' ? minimal.pid : naive.pid!]);

/** One call of `models` on a side, to its end. */
async function call(side: Side, models: string[]): Promise<void> {
  if (side === 'minimal') return minimal.ask(models);
  const session = side === 'ours' ? ours : naive;
  assertAnswered(
    session,
    await processPrompt(session, { prompt: freshPrompt('streaming'), models }, { timeout: 600_000 }),
    'a streaming call',
  );
}

/** Wall time and CPU time (every process of the side) of `calls` calls at once. */
async function measureCalls(side: Side, calls: number, models: string[]): Promise<{ ms: number; cpuMs: number }> {
  const cpuBefore = await cpuNs(await pidsOf(side));
  const started = performance.now();
  await Promise.all(Array.from({ length: calls }, () => call(side, models)));
  const ms = performance.now() - started;
  return { ms, cpuMs: ((await cpuNs(await pidsOf(side))) - cpuBefore) / 1e6 };
}

/** CPU µs per event: a call of EVENTS events less a call of FIXED_EVENTS, over the difference in events. */
async function cpuPerEvent(side: Side, shape: 'burst' | 'paced'): Promise<number> {
  const full = await measureCalls(side, 1, [`tiny/${shape}`]);
  const fixed = await measureCalls(side, 1, [`tiny/${shape}-fixed`]);
  return ((full.cpuMs - fixed.cpuMs) * 1000) / (EVENTS - FIXED_EVENTS);
}

await interleaved(1, ['ours', 'minimal', 'naive'] as const, (side) => measureCalls(side, 1, big).then(() => 0)); // warm-up
const shapes = { one: { calls: 1 }, eight: { calls: 8 } };
const walls: Record<string, Record<Side, Array<{ ms: number; cpuMs: number }>>> = {};
for (const [name, { calls }] of Object.entries(shapes)) {
  walls[name] = { ours: [], minimal: [], naive: [] };
  await interleaved(ROUNDS, ['ours', 'minimal', 'naive'] as const, async (side) => {
    const measured = await measureCalls(side, calls, big);
    walls[name]![side].push(measured);
    process.stderr.write(`${name} call(s), ${side}: ${round(measured.ms)} ms, CPU ${round(measured.cpuMs)} ms\n`);
    return measured.ms;
  });
}
const perEvent = {
  burst: await interleaved(ROUNDS, ['ours', 'minimal'] as const, (side) => cpuPerEvent(side, 'burst')),
  paced: await interleaved(ROUNDS, ['ours', 'minimal'] as const, (side) => cpuPerEvent(side, 'paced')),
};
await Promise.all([ours.close(), naive.close(), minimal.close()]);
await fake.close();
await cleanup();

const rows: Row[] = [];
const medianOf = (name: string, side: Side, key: 'ms' | 'cpuMs') => round(median(walls[name]![side].map((measured) => measured[key])), 0);
for (const [name, label] of [
  ['one', 'one call, 5 models × 2 MiB in 64-char events'],
  ['eight', '8 such calls at once'],
] as const) {
  const [oursMs, minimalMs] = [medianOf(name, 'ours', 'ms'), medianOf(name, 'minimal', 'ms')];
  const row = (against: string, ours: number, reference: number) => ({
    figure: `${label}: ${against}, median`,
    unit: 'ms',
    ours,
    reference,
    target: '—',
  });
  rows.push(
    {
      ...row('wall time against the minimal streaming consumer', oursMs, minimalMs),
      target: `≤ ${WALL_TARGET} × minimal`,
      met: oursMs <= WALL_TARGET * minimalMs,
    },
    row('wall time against the naive non-streaming server', oursMs, medianOf(name, 'naive', 'ms')),
    row('CPU time of all processes against the minimal consumer', medianOf(name, 'ours', 'cpuMs'), medianOf(name, 'minimal', 'cpuMs')),
  );
}
for (const shape of ['burst', 'paced'] as const) {
  const [oursUs, minimalUs] = [median(perEvent[shape].ours), median(perEvent[shape].minimal)];
  const limit = Math.max(CPU_TARGET.ratio * minimalUs, CPU_TARGET.floorUs);
  const how = shape === 'burst' ? 'in one burst' : 'paced (one per read)';
  rows.push({
    figure: `CPU per SSE event, ${EVENTS.toLocaleString('en-US')} events of 3-5 chars ${how}, fixed cost out, against the minimal consumer, median`,
    unit: 'µs',
    ours: round(oursUs, 2),
    reference: round(minimalUs, 2),
    target: `≤ max(${CPU_TARGET.ratio} × minimal, ${CPU_TARGET.floorUs} µs) = ${round(limit, 2)}`,
    met: oursUs <= limit,
  });
}
/** Every measurement of `key`, by shape and side. */
const all = (key: 'ms' | 'cpuMs') =>
  Object.fromEntries(
    Object.entries(walls).map(([name, sides]) => [
      name,
      Object.fromEntries(Object.entries(sides).map(([side, runs]) => [side, runs.map((run) => round(run[key], 0))])),
    ]),
  );
await report('streaming', {
  rounds: ROUNDS,
  answerChars: ANSWER_CHARS,
  rows,
  wallMs: all('ms'),
  cpuMs: all('cpuMs'),
  cpuPerEventUs: Object.fromEntries(
    Object.entries(perEvent).map(([shape, sides]) => [
      shape,
      { ours: sides.ours.map((us) => round(us, 2)), minimal: sides.minimal.map((us) => round(us, 2)) },
    ]),
  ),
});
