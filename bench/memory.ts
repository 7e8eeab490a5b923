/**
 * Memory: the peak resident set (the kernel's VmHWM) of a server process answering 8 calls at
 * once, each of 5 candidates answering 2 MiB (80 MiB received). Two kinds of answer: one digit
 * repeated (the workload of the figure) and prose (words and spaces, as models write),
 * since some costs grow with the number of words. Each side runs in a fresh process per round;
 * the sides take turns; medians of BENCH_ROUNDS (3) each.
 */
import { assertAnswered, connect, freshPrompt, interleaved, median, processPrompt, report, round, rssMiB, serversUnderTest, serverEnv, startFakeOpenRouter, tempOutputDir, type Row } from './lib.js';

const CALLS = 8;
const ANSWER_CHARS = 2 * 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_MIB = 150;
const PROSE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. ';
const ANSWERS = {
  digits: (i: number) => String(i).repeat(ANSWER_CHARS),
  prose: () => PROSE.repeat(Math.ceil(ANSWER_CHARS / PROSE.length)).slice(0, ANSWER_CHARS),
};
type Kind = keyof typeof ANSWERS;

const fake = await startFakeOpenRouter();
const modelsFor = (kind: Kind) =>
  Array.from({ length: 5 }, (_, i) => {
    const model = `${kind}/${i + 1}`;
    fake.on(model, { answer: ANSWERS[kind](i), delayMs: 50, chunks: 64 });
    return model;
  });
const models = { digits: modelsFor('digits'), prose: modelsFor('prose') };
fake.on('m/synth', { answer: 'synthesized', delayMs: 50 });
const servers = await serversUnderTest();

async function peakRss(side: 'ours' | 'reference', kind: Kind): Promise<number> {
  const env = serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models[kind].join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'm/synth' });
  const session = await connect(servers[side], env);
  const calls = Array.from({ length: CALLS }, () => processPrompt(session, { prompt: freshPrompt('memory') }, { timeout: 300_000 }));
  for (const call of await Promise.all(calls)) assertAnswered(session, call, 'a memory call');
  const peak = await rssMiB(session.pid!, 'VmHWM');
  await session.close();
  return peak;
}

const rows: Row[] = [];
const peaks: Record<string, Record<'ours' | 'reference', number[]>> = {};
for (const kind of Object.keys(ANSWERS) as Kind[]) {
  const measured = await interleaved(ROUNDS, ['ours', 'reference'] as const, (side) => peakRss(side, kind));
  peaks[kind] = { ours: measured.ours.map((mib) => round(mib)), reference: measured.reference.map((mib) => round(mib)) };
  const [ours, reference] = [median(measured.ours), median(measured.reference)];
  rows.push({
    figure: `peak RSS, ${CALLS} calls at once × 5 answers of 2 MiB (${kind}), median`,
    unit: 'MiB',
    ours: round(ours),
    reference: round(reference),
    target: `≤ ${TARGET_MIB}`,
    met: ours <= TARGET_MIB,
  });
}
await fake.close();
await servers.cleanup();
await report('memory', {
  calls: CALLS,
  dataReceivedMiB: (CALLS * 5 * ANSWER_CHARS) / 2 ** 20,
  rows,
  peakRssMiB: peaks,
});
