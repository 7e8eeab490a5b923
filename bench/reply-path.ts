/**
 * Where a call's overhead goes, under the overhead bench's workload (five candidates in
 * 100-500 ms, a 100 ms synthesizer): bench/support/reply-path-probe.mjs, preloaded into the
 * server and the run host, notes when each upstream request is made and ends and when the
 * result is written; the bench notes when it sent each call and got its result, and reads the
 * CPU each process spent on the measured calls, its main thread apart from its others (file
 * operations run on libuv's threads). Four configurations take turns, each with its own server
 * and host: as users run it, saving off, logging off, both off. Medians of BENCH_CALLS (20) each.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
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
import { pidsRunning, productPaths, threadCpuNs } from './procs.js';

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
const names = Object.keys(CONFIGURATIONS) as Configuration[];

interface Noted {
  pid: number;
  role: 'server' | 'host';
  requests: Array<{ model?: string; call?: string; createdAt: number; endedAt?: number }>;
  replies: number[];
}

const fake = await startFakeOpenRouter();
const models = ['o/100', 'o/200', 'o/300', 'o/400', 'o/500'];
for (const [i, model] of models.entries()) fake.on(model, { answer: `answer ${i}`, delayMs: 100 * (i + 1) });
fake.on(SYNTHESIZER, { answer: 'synthesized', delayMs: 100 });
const { binPath, cleanup } = await installedBin();
const notedDir = await mkdtemp(path.join(os.tmpdir(), 'reply-path-'));
const sessions = {} as Record<Configuration, Session>;
for (const name of names) {
  const env = serverEnv(fake, await tempOutputDir(), {
    PARALLEL_LLM_MODELS: models.join(','),
    PARALLEL_LLM_SYNTHESIZER_MODEL: SYNTHESIZER,
    NODE_OPTIONS: `--import ${PROBE}`,
    REPLY_PATH_DIR: notedDir,
    ...CONFIGURATIONS[name],
  });
  sessions[name] = await connect({ command: process.execPath, args: [binPath] }, env);
}

/** When the bench sent each call (by its label) and got its result, on the same clock as the probe's. */
const seen = Object.fromEntries(names.map((name) => [name, [] as Array<{ call: string; sentAt: number; receivedAt: number }>]));
const absoluteNow = () => performance.timeOrigin + performance.now();
const call = async (name: Configuration) => {
  const prompt = freshPrompt(`reply-path ${name}`);
  const sentAt = absoluteNow();
  assertAnswered(sessions[name], await processPrompt(sessions[name], { prompt }), 'a reply-path call');
  seen[name]!.push({ call: /reply-path (\S+ \d+-\d+)/.exec(prompt)![1]!, sentAt, receivedAt: absoluteNow() });
  return 0;
};
await interleaved(WARM_UP, names, call);
// Every server has started its host by now: the processes whose CPU the measured calls cost.
const processes = await pidsRunning(await productPaths(binPath));
const cpuBefore = await threadCpuNs(processes);
await interleaved(CALLS, names, call);
const cpuAfter = await threadCpuNs(processes);
await Promise.all(names.map((name) => sessions[name].close()));
const noted = await Promise.all(
  (await readdir(notedDir)).map(async (file) => JSON.parse(await readFile(path.join(notedDir, file), 'utf8')) as Noted),
);
await rm(notedDir, { recursive: true, force: true });

/** A configuration's server, and the host that made its calls' requests. */
const processesOf = (name: Configuration) => ({
  server: noted.find((one) => one.pid === sessions[name].pid)!,
  host: noted.find((one) => one.role === 'host' && one.requests.some((request) => request.call?.startsWith(`${name} `)))!,
});

const cpuPerCallMs = (pid: number, thread: 'main' | 'others') =>
  round((cpuAfter.get(pid)![thread] - cpuBefore.get(pid)![thread]) / 1e6 / CALLS, 2);

const phases: Record<string, Record<string, number>> = {};
const cpu: Record<string, Record<string, number>> = {};
for (const name of names) {
  const { server, host } = processesOf(name);
  const times = seen[name]!.slice(WARM_UP).map(({ call, sentAt, receivedAt }, i) => {
    const own = host.requests.filter((request) => request.call === call);
    const synthesis = own.find((request) => request.model === SYNTHESIZER)!;
    const candidates = own.filter((request) => request !== synthesis);
    const repliedAt = server.replies[WARM_UP + i]!;
    return {
      callToFirstRequest: Math.min(...candidates.map((request) => request.createdAt)) - sentAt,
      lastAnswerToSynthesisRequest: synthesis.createdAt - Math.max(...candidates.map((request) => request.endedAt!)),
      synthesisAnswerToResultWritten: repliedAt - synthesis.endedAt!,
      resultWrittenToClient: receivedAt - repliedAt,
    };
  });
  phases[name] = Object.fromEntries(
    Object.keys(times[0]!).map((phase) => [phase, round(median(times.map((t) => t[phase as keyof (typeof times)[0]])), 2)]),
  );
  cpu[name] = {
    serverMain: cpuPerCallMs(server.pid, 'main'),
    serverOthers: cpuPerCallMs(server.pid, 'others'),
    hostMain: cpuPerCallMs(host.pid, 'main'),
    hostOthers: cpuPerCallMs(host.pid, 'others'),
  };
}
await fake.close();
await cleanup();
await report('reply-path', { calls: CALLS, medianMs: phases, cpuMsPerCall: cpu });
