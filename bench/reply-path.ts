/**
 * Where a call's overhead goes, inside our server, under the overhead bench's workload (five
 * candidates in 100-500 ms, a 100 ms synthesizer). bench/support/reply-path-probe.mjs, preloaded
 * into the server, notes when each upstream request is made and ends and when the result is
 * written; the bench notes when it sent each call and got its result. Four configurations take
 * turns: as users run it, saving off, logging off, both off. Medians of BENCH_CALLS (20) each.
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
  type Session,
} from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const WARM_UP = 2;
const SYNTHESIZER = 'o/synth';
const PROBE = path.join(import.meta.dirname, 'support', 'reply-path-probe.mjs');
const CONFIGURATIONS = {
  asUsersRunIt: {},
  savingOff: { PARALLEL_LLM_SAVE_OUTPUTS: 'false' },
  loggingOff: { PARALLEL_LLM_LOG_LEVEL: 'silent' },
  bothOff: { PARALLEL_LLM_SAVE_OUTPUTS: 'false', PARALLEL_LLM_LOG_LEVEL: 'silent' },
};
type Configuration = keyof typeof CONFIGURATIONS;

interface ProbedCall {
  requests: Array<{ model?: string; createdAt: number; endedAt?: number }>;
  repliedAt?: number;
}

const fake = await startFakeOpenRouter();
const models = ['o/100', 'o/200', 'o/300', 'o/400', 'o/500'];
models.forEach((model, i) => fake.on(model, { answer: `answer ${i}`, delayMs: 100 * (i + 1) }));
fake.on(SYNTHESIZER, { answer: 'synthesized', delayMs: 100 });
const { binPath, cleanup } = await installedBin();
const sessions = {} as Record<Configuration, Session>;
for (const [name, extra] of Object.entries(CONFIGURATIONS)) {
  const env = serverEnv(fake, await tempOutputDir(), {
    PARALLEL_LLM_MODELS: models.join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: SYNTHESIZER,
    ...extra,
  });
  sessions[name as Configuration] = await connect({ command: process.execPath, args: ['--import', PROBE, binPath] }, env);
}

/** When the bench sent each call and got its result, on the same clock as the probe's. */
const seen = Object.fromEntries(
  Object.keys(CONFIGURATIONS).map((name) => [name, [] as Array<{ sentAt: number; receivedAt: number }>]),
) as Record<Configuration, Array<{ sentAt: number; receivedAt: number }>>;
const absoluteNow = () => performance.timeOrigin + performance.now();
await interleaved(WARM_UP + CALLS, Object.keys(CONFIGURATIONS) as Configuration[], async (name) => {
  const sentAt = absoluteNow();
  assertAnswered(sessions[name], await processPrompt(sessions[name], { prompt: freshPrompt('reply-path') }), 'a reply-path call');
  seen[name].push({ sentAt, receivedAt: absoluteNow() });
  return 0;
});

/** The probe's report, printed as the server exits. */
async function probed(session: Session): Promise<ProbedCall[]> {
  await session.close();
  for (const deadline = Date.now() + 2000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const line = /REPLY-PATH (.*)/.exec(session.stderrTail())?.[1];
    if (line) return JSON.parse(line) as ProbedCall[];
  }
  throw new Error('the server printed no REPLY-PATH line');
}

const phases: Record<string, Record<string, number>> = {};
for (const name of Object.keys(CONFIGURATIONS) as Configuration[]) {
  const calls = (await probed(sessions[name])).slice(WARM_UP);
  const times = calls.map((call, i) => {
    const synthesis = call.requests.find((request) => request.model === SYNTHESIZER)!;
    const candidates = call.requests.filter((request) => request !== synthesis);
    const { sentAt, receivedAt } = seen[name][WARM_UP + i]!;
    return {
      callToFirstRequest: Math.min(...candidates.map((request) => request.createdAt)) - sentAt,
      lastAnswerToSynthesisRequest: synthesis.createdAt - Math.max(...candidates.map((request) => request.endedAt!)),
      synthesisAnswerToResultWritten: call.repliedAt! - synthesis.endedAt!,
      resultWrittenToClient: receivedAt - call.repliedAt!,
    };
  });
  phases[name] = Object.fromEntries(
    Object.keys(times[0]!).map((phase) => [phase, round(median(times.map((t) => t[phase as keyof (typeof times)[0]])), 2)]),
  );
}
await fake.close();
await cleanup();
await report('reply-path', { calls: CALLS, medianMs: phases });
