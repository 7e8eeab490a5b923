/**
 * Overhead: five candidates answering after 100-500 ms and a 100 ms synthesizer make an ideal
 * call of 600 ms; what a call takes on top of that, seen by the MCP client, is the overhead.
 * Four subjects take turns, one call each per round: ours as users run it (saving on), ours
 * with saving off, the reference, and the same six requests sent straight to the fake with
 * `fetch` (no server: what the fake and HTTP alone cost). Medians of BENCH_CALLS (20) each.
 * BENCH_OTHER_BIN=<path to another build's dist/bin.js> adds a fifth subject taking turns with
 * the others, saving on: how a change moves the short call, against the same build as users run it.
 */
import { VALID_KEY } from '../test/support/fake-openrouter.js';
import {
  assertAnswered,
  connect,
  freshPrompt,
  interleaved,
  median,
  percentile,
  processPrompt,
  report,
  round,
  serversUnderTest,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
  type Session,
} from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const IDEAL_MS = 600;
/** A durable call may cost this much more than the naive server, which saves nothing. */
const TARGET_MS = 5;

const fake = await startFakeOpenRouter();
const models = ['o/100', 'o/200', 'o/300', 'o/400', 'o/500'];
for (const [i, model] of models.entries()) fake.on(model, { answer: `answer ${i}`, delayMs: 100 * (i + 1) });
fake.on('o/synth', { answer: 'synthesized', delayMs: 100 });
const { ours, reference, cleanup } = await serversUnderTest();
const env = async (extra: Record<string, string> = {}) =>
  serverEnv(fake, await tempOutputDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_SYNTHESIZER_MODEL: 'o/synth', ...extra });
const otherBin = process.env.BENCH_OTHER_BIN;
const sessions = {
  ours: await connect(ours, await env()),
  oursSavingOff: await connect(ours, await env({ PARALLEL_LLM_SAVE_OUTPUTS: 'false' })),
  reference: await connect(reference, await env()),
  ...(otherBin ? { otherBuild: await connect({ command: process.execPath, args: [otherBin] }, await env()) } : {}),
};

async function overheadOfCall(session: Session): Promise<number> {
  const started = performance.now();
  assertAnswered(session, await processPrompt(session, { prompt: freshPrompt('overhead') }), 'an overhead call');
  return performance.now() - started - IDEAL_MS;
}

/** The same six requests with no server between: what the fake and HTTP alone cost. */
async function overheadWithoutServer(): Promise<number> {
  const ask = async (model: string) => {
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${VALID_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'q' }], max_tokens: 100, stream: true }),
    });
    await response.text();
  };
  const started = performance.now();
  await Promise.all(models.map(ask));
  await ask('o/synth');
  return performance.now() - started - IDEAL_MS;
}

type Subject = 'ours' | 'reference' | 'oursSavingOff' | 'noServer' | 'otherBuild';
const subjects: Subject[] = ['ours', 'reference', 'oursSavingOff', 'noServer', ...(otherBin ? (['otherBuild'] as const) : [])];
const measure = (subject: Subject) => (subject === 'noServer' ? overheadWithoutServer() : overheadOfCall(sessions[subject]!));
await interleaved(2, subjects, measure); // warm-up: connections, code paths, the run folders' parent
const overheads = await interleaved(CALLS, subjects, measure);
await Promise.all(Object.values(sessions).map((session) => session.close()));
await fake.close();
await cleanup();

const stats = (values: number[]) => ({
  median: round(median(values)),
  p90: round(percentile(values, 90)),
  min: round(Math.min(...values)),
  max: round(Math.max(...values)),
});
const [oursMs, referenceMs, noServerMs] = [median(overheads.ours), median(overheads.reference), median(overheads.noServer)];
const target = `≤ reference + ${TARGET_MS} ms`;
await report('overhead', {
  calls: CALLS,
  idealMs: IDEAL_MS,
  rows: [
    {
      figure: 'overhead over an ideal 600 ms call (5 candidates + synthesis, saving on), median',
      unit: 'ms',
      ours: round(oursMs),
      reference: round(referenceMs),
      target,
      met: oursMs <= referenceMs + TARGET_MS,
    },
    {
      figure: `the same, less what the fake and HTTP alone take (${round(noServerMs)} ms with no server)`,
      unit: 'ms',
      ours: round(oursMs - noServerMs),
      reference: round(referenceMs - noServerMs),
      target,
      met: oursMs <= referenceMs + TARGET_MS,
    },
  ],
  overheadMs: Object.fromEntries(subjects.map((subject) => [subject, stats(overheads[subject])])),
});
