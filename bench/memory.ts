/**
 * Memory: the peak resident set of every process of a side (ours: every process that runs the
 * installed bin, server and run host alike, summed, sampled every 20 ms from /proc; the naive
 * reference: its one process, sampled the same way) while it answers 8 calls at once, each of 5
 * candidates answering 2 MiB (80 MiB received). Two shapes of stream: prose in 64-character
 * events, as models send it, and one digit repeated in 32 KiB events. Then ours alone with
 * answers four times as long (320 MiB received): the peak must not grow with them. Each side
 * runs in a fresh process per round; the sides take turns; medians of BENCH_ROUNDS (3) each.
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
  tempOutputDir,
  type Row,
  type ServerCommand,
} from './lib.js';
import { productPaths, samplePeakRss } from './procs.js';
import { piecesOf, prose, serveStream } from './streams.js';

const CALLS = 8;
const MIB = 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MIB = 150;
const SHAPES = {
  prose: { label: 'prose in 64-char events', answerChars: 2 * MIB, pieces: (chars: number) => piecesOf(prose(chars), 64) },
  digits: { label: 'one digit in 32 KiB events', answerChars: 2 * MIB, pieces: (chars: number) => piecesOf('7'.repeat(chars), 32 * 1024) },
  longer: {
    label: 'prose in 64-char events, answers of 8 MiB',
    answerChars: 8 * MIB,
    pieces: (chars: number) => piecesOf(prose(chars), 64),
  },
};
type Shape = keyof typeof SHAPES;

const fake = await startFakeOpenRouter();
const modelsOf = Object.fromEntries(
  Object.entries(SHAPES).map(([shape, { answerChars, pieces }]) => {
    const models = Array.from({ length: 5 }, (_, i) => `${shape}/${i + 1}`);
    const answer = pieces(answerChars);
    for (const model of models) serveStream(fake, model, answer);
    return [shape, models];
  }),
) as Record<Shape, string[]>;
fake.on('m/synth', { answer: 'synthesized', delayMs: 50 });
const { binPath, cleanup } = await installedBin();
const sides = {
  ours: { server: { command: process.execPath, args: [binPath] }, paths: await productPaths(binPath) },
  reference: {
    server: { command: process.execPath, args: [path.join(import.meta.dirname, 'reference', 'server.js')] },
    paths: [] as string[],
  },
};

/** The peak of the side's processes, summed, while it answers CALLS calls at once. */
async function peakRss(server: ServerCommand, paths: string[], shape: Shape): Promise<number> {
  const env = serverEnv(fake, await tempOutputDir(), {
    PARALLEL_LLM_MODELS: modelsOf[shape].join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: 'm/synth',
  });
  const session = await connect(server, env);
  // The reference's one process is found by its pid's command line, as ours are by the bin's path.
  const sampler = samplePeakRss(paths.length > 0 ? paths : [server.args[0]!]);
  const calls = Array.from({ length: CALLS }, () => processPrompt(session, { prompt: freshPrompt('memory') }, { timeout: 600_000 }));
  for (const call of await Promise.all(calls)) assertAnswered(session, call, 'a memory call');
  const { peakMiB } = await sampler.stop();
  await session.close();
  return peakMiB;
}

const rows: Row[] = [];
const peaks: Record<string, Record<string, number[]>> = {};
for (const shape of ['prose', 'digits'] as const) {
  const measured = await interleaved(ROUNDS, ['ours', 'reference'] as const, (side) =>
    peakRss(sides[side].server, sides[side].paths, shape),
  );
  peaks[shape] = { ours: measured.ours.map((mib) => round(mib)), reference: measured.reference.map((mib) => round(mib)) };
  const [ours, reference] = [median(measured.ours), median(measured.reference)];
  rows.push({
    figure: `peak RSS of all processes, ${CALLS} calls at once × 5 answers of 2 MiB (${SHAPES[shape].label}), median`,
    unit: 'MiB',
    ours: round(ours),
    reference: round(reference),
    target: `≤ ${TARGET_MIB}`,
    met: ours <= TARGET_MIB,
  });
}
const longer = await interleaved(ROUNDS, ['ours'] as const, () => peakRss(sides.ours.server, sides.ours.paths, 'longer'));
peaks.longer = { ours: longer.ours.map((mib) => round(mib)) };
const longerMiB = median(longer.ours);
rows.push({
  figure: `the same with answers 4× as long (${SHAPES.longer.label}: 320 MiB received), ours alone, median`,
  unit: 'MiB',
  ours: round(longerMiB),
  reference: null,
  target: `≤ ${TARGET_MIB} (flat)`,
  met: longerMiB <= TARGET_MIB,
});
await fake.close();
await cleanup();
await report('memory', { calls: CALLS, rows, peakRssMiB: peaks });
