/**
 * Clients: one run host serving 50 clients' calls at once (issue 19: "one run host serving 50
 * clients' calls at once holds those targets per stream"). 50 MCP server processes of the
 * installed bin, each driven by its own SDK Client over stdio, all with the same settings and
 * one PARALLEL_LLM_HOST_DIR, so that they share one run host; the bench checks that exactly one
 * host process served them. Each client makes one call at once, of one model streaming 256 KiB
 * of prose in 64-character events (4,096 events; 204,800 for the 50), against the minimal
 * streaming consumer reading the same 50 streams at once from the same fake, the sides taking
 * turns in every round:
 * - the wall time of the 50 calls together (target: ≤ 1.3 × the minimal consumer's);
 * - CPU per SSE event, of the run host alone and of every product process (host + 50 servers),
 *   everything the window took over the events it carried, and with the calls' fixed cost out
 *   (the same 50 calls with streams of 16 events, taken off) (target: ≤ max(2 × minimal, 5 µs));
 * - the run host's peak resident set (VmHWM, over the whole bench).
 * A window's CPU runs until the processes are idle again after the last answer (what a call
 * leaves to do after its reply, such as final.md and the journal, is its cost too); its wall time
 * ends at the last answer. Events are the streams' content events (4,096 each). Every call of ours
 * has its synthesis (of its one answer, by a fake model answering at once), as every call does;
 * the minimal consumer has none.
 * Why 256 KiB: about 65,000 tokens of prose, as long as the longest answers models give, so that
 * the calls' fixed costs (the run folder, the journal, MCP, the synthesis) weigh no more than in
 * a real long answer, while a round of both sides takes a few seconds on 2 cores and the whole
 * bench, the 50 starts included, about half a minute. Shorter answers weigh the fixed costs
 * more, longer ones less (BENCH_ANSWER_KIB, below).
 * The servers start (and the host, at the warm-up's first call) before anything is measured.
 * The host gets PARALLEL_LLM_MAX_CONCURRENCY=50, so that every stream is read at once, as the
 * minimal consumer reads them (it has no limit): the figures are the host's own cost, not its
 * queue. Medians of BENCH_ROUNDS (3); BENCH_CLIENTS changes the 50, BENCH_ANSWER_KIB the 256.
 * BENCH_HOST_PROFILE=1: the bench starts the run host itself, as a face would but under
 * `node --cpu-prof`, before the first call (the servers then find it, as they find a host another
 * face started), and saves its profile as bench/profiles/clients-host.cpuprofile with its top
 * frames in the report. The timings of such a run are the profiled host's: not the figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stopHostsUnder } from '../test/support/hosts.js';
import { assertAnswered, connect, freshPrompt, installedBin, interleaved, median, processPrompt, report, round, rssMiB, serverEnv, startFakeOpenRouter, startMinimalConsumer, tempOutputDir, topFrames, type CpuProfile, type Row, type Session } from './lib.js';
import { cpuNs, pidsRunning, productPaths } from './procs.js';
import { piecesOf, prose, serveStream } from './streams.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ANSWER_CHARS = Number(process.env.BENCH_ANSWER_KIB ?? 256) * 1024;
const EVENT_CHARS = 64;
/** Content events per stream (the keep-alive comment, the finish and [DONE] come besides). */
const EVENTS = ANSWER_CHARS / EVENT_CHARS;
const FIXED_EVENTS = 16;
/** Servers started at once: 50 Node starts at once on 2 cores would only queue. */
const START_BATCH = 10;
/** Processes this idle over 100 ms have finished what the calls left them to do. */
const SETTLED_NS = 1e6;
const WALL_TARGET = 1.3;
const CPU_TARGET = { ratio: 2, floorUs: 5 };

const fake = await startFakeOpenRouter();
const streamModels = (prefix: string, events: number) =>
  Array.from({ length: CLIENTS }, (_, i) => {
    const model = `${prefix}/${i + 1}`;
    serveStream(fake, model, piecesOf(prose(events * EVENT_CHARS), EVENT_CHARS));
    return model;
  });
const big = streamModels('clients', EVENTS);
const fixed = streamModels('clients-fixed', FIXED_EVENTS);
fake.on('clients/synth', { answer: 'synthesized' });

const { binPath, cleanup } = await installedBin();
const ourPaths = await productPaths(binPath);
const outputDir = await tempOutputDir();
// One setting for all: every server reaches the same host (PARALLEL_LLM_HOST_DIR is outputDir/.host).
const env = serverEnv(fake, outputDir, { PARALLEL_LLM_SYNTHESIZER_MODEL: 'clients/synth', PARALLEL_LLM_MAX_CONCURRENCY: String(CLIENTS) });
const sessions: Session[] = [];
const startedAt = performance.now();
for (let i = 0; i < CLIENTS; i += START_BATCH) {
  const batch = Array.from({ length: Math.min(START_BATCH, CLIENTS - i) }, (_, j) => connect({ command: process.execPath, args: [binPath] }, env, `client-${i + j + 1}`));
  sessions.push(...(await Promise.all(batch)));
}
process.stderr.write(`${CLIENTS} servers started in ${round(performance.now() - startedAt, 0)} ms\n`);
const minimal = await startMinimalConsumer(env);
const profileDir = process.env.BENCH_HOST_PROFILE === '1' ? await startProfiledHost() : undefined;

/** The product's processes now, told apart by their command line: the run host's names `host`. */
async function productProcesses(): Promise<{ hosts: number[]; servers: number[] }> {
  const hosts: number[] = [];
  const servers: number[] = [];
  for (const pid of await pidsRunning(ourPaths)) {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    (args.includes('host') ? hosts : servers).push(pid);
  }
  return { hosts, servers };
}

type Side = 'ours' | 'minimal';
interface Measured {
  ms: number;
  /** Each call's own time, from its request to its answer. */
  callMs: number[];
  /** How long the processes went on working after the last answer. */
  settleMs: number;
  /** ours: the run host; minimal: its one process. */
  hostCpuMs: number;
  /** ours: the host and every server; minimal: its one process. */
  allCpuMs: number;
  /** ours: the processes seen, before and after. */
  hosts?: number[];
  servers?: number;
}
const hostsSeen = new Set<number>();

/** Waits until `pids` have stopped working (under 1 ms of CPU in 100 ms, all together; 5 s at most): how long that took. */
async function settled(pids: number[]): Promise<number> {
  const started = performance.now();
  for (let before = await cpuNs(pids); performance.now() - started < 5000; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await cpuNs(pids);
    if (now - before < SETTLED_NS) break;
    before = now;
  }
  return performance.now() - started;
}

/** One call of `model` on client `i` (ours) or on the minimal consumer, timed to its answer. */
async function call(side: Side, i: number, model: string): Promise<number> {
  const started = performance.now();
  if (side === 'minimal') await minimal.ask([model]);
  else assertAnswered(sessions[i]!, await processPrompt(sessions[i]!, { prompt: freshPrompt('clients'), models: [model] }, { timeout: 600_000 }), `client ${i + 1}'s call`);
  return performance.now() - started;
}

/** The 50 calls at once, one per client, each of its own model. */
async function measureCalls(side: Side, models: string[]): Promise<Measured> {
  const before = side === 'ours' ? await productProcesses() : { hosts: [minimal.pid], servers: [] };
  const [hostBefore, serversBefore] = [await cpuNs(before.hosts), await cpuNs(before.servers)];
  const started = performance.now();
  const callMs = await Promise.all(models.map((model, i) => call(side, i, model)));
  const ms = performance.now() - started;
  const after = side === 'ours' ? await productProcesses() : before;
  // What a call leaves to do after its answer (final.md, the journal, files flushed) is its cost too.
  const settleMs = await settled([...after.hosts, ...after.servers]);
  const [hostAfter, serversAfter] = [await cpuNs(after.hosts), await cpuNs(after.servers)];
  const hostCpuMs = (hostAfter - hostBefore) / 1e6;
  const measured: Measured = { ms, callMs, settleMs, hostCpuMs, allCpuMs: hostCpuMs + (serversAfter - serversBefore) / 1e6 };
  if (side === 'ours') {
    // A host that started or ended within the window would make the CPU sums wrong: it must be the one before and after.
    measured.hosts = [...new Set([...before.hosts, ...after.hosts])];
    measured.servers = Math.min(before.servers.length, after.servers.length);
    measured.hosts.forEach((pid) => hostsSeen.add(pid));
  }
  return measured;
}

// Warm-up: the first call starts the run host, every server connects to it; both sides load their code paths.
await interleaved(1, ['ours', 'minimal'] as const, (side) => measureCalls(side, big).then(() => 0));
const servedByHost = sessions.filter((session) => session.stderrTail().includes('runs execute in the run host')).length;
const results: Record<'big' | 'fixed', Record<Side, Measured[]>> = { big: { ours: [], minimal: [] }, fixed: { ours: [], minimal: [] } };
await interleaved(ROUNDS, ['ours', 'minimal'] as const, async (side) => {
  const measured = await measureCalls(side, big);
  results.big[side].push(measured);
  results.fixed[side].push(await measureCalls(side, fixed));
  process.stderr.write(
    `${CLIENTS} calls, ${side}: ${round(measured.ms, 0)} ms, CPU ${side === 'ours' ? `host ${round(measured.hostCpuMs, 0)} ms, all ` : ''}${round(measured.allCpuMs, 0)} ms${side === 'ours' ? `, ${measured.hosts!.length} host(s), ${measured.servers} servers` : ''}\n`,
  );
  return measured.ms;
});

const { hosts: hostsAtEnd, servers: serversAtEnd } = await productProcesses();
const hostPeakMiB = hostsAtEnd.length === 1 ? await rssMiB(hostsAtEnd[0]!, 'VmHWM') : NaN;
const minimalPeakMiB = await rssMiB(minimal.pid, 'VmHWM');
const serverRss = await Promise.all(serversAtEnd.map((pid) => rssMiB(pid, 'VmRSS')));
hostsAtEnd.forEach((pid) => hostsSeen.add(pid));

// Stop every process: the servers (each client closes its own), then the host they shared, then whatever outlived both.
await Promise.all(sessions.map((session) => session.client.close()));
await stopHostsUnder(outputDir);
await minimal.close();
let leftAfterStop = await pidsRunning(ourPaths);
for (const waitUntil = performance.now() + 5000; leftAfterStop.length > 0 && performance.now() < waitUntil; leftAfterStop = await pidsRunning(ourPaths)) await new Promise((resolve) => setTimeout(resolve, 50));
for (const pid of leftAfterStop) process.kill(pid, 'SIGKILL');
await fake.close();
await cleanup();
const hostProfile = profileDir === undefined ? undefined : await saveProfile(profileDir);

const medianOf = (shape: 'big' | 'fixed', side: Side, key: 'ms' | 'hostCpuMs' | 'allCpuMs') => median(results[shape][side].map((measured) => measured[key]));
const bigEvents = CLIENTS * EVENTS;
/** µs per event, of each round: the whole window over the events, or the window less the fixed-cost window over the difference. */
const perEvent = (side: Side, key: 'hostCpuMs' | 'allCpuMs', fixedOut: boolean) =>
  results.big[side].map((measured, r) => (fixedOut ? ((measured[key] - results.fixed[side][r]![key]) * 1000) / (CLIENTS * (EVENTS - FIXED_EVENTS)) : (measured[key] * 1000) / bigEvents));
const served = { hosts: hostsSeen.size, everyWindowOneHost: results.big.ours.concat(results.fixed.ours).every((measured) => measured.hosts!.length === 1), servedByHost };

const label = `${CLIENTS} clients' calls at once, each 1 model × ${ANSWER_CHARS / 1024} KiB in 64-char events`;
const [oursMs, minimalMs] = [medianOf('big', 'ours', 'ms'), medianOf('big', 'minimal', 'ms')];
const rows: Row[] = [
  {
    figure: `${label}: run host processes that served the ${CLIENTS} servers (pids seen in every window)`,
    unit: 'processes',
    ours: served.hosts,
    reference: null,
    target: '= 1',
    met: served.hosts === 1 && served.everyWindowOneHost && served.servedByHost === CLIENTS,
  },
  { figure: `${label}: wall time of the ${CLIENTS} calls, against the minimal streaming consumer, median`, unit: 'ms', ours: round(oursMs, 0), reference: round(minimalMs, 0), target: `≤ ${WALL_TARGET} × minimal`, met: oursMs <= WALL_TARGET * minimalMs },
  {
    figure: `${label}: one call's own time (median of the ${CLIENTS}), median`,
    unit: 'ms',
    ours: round(median(results.big.ours.map((measured) => median(measured.callMs))), 0),
    reference: round(median(results.big.minimal.map((measured) => median(measured.callMs))), 0),
    target: '—',
  },
];
for (const [key, who] of [
  ['hostCpuMs', 'the run host'],
  ['allCpuMs', `all processes (host + ${CLIENTS} servers)`],
] as const) {
  for (const fixedOut of [false, true]) {
    const [ours, reference] = [median(perEvent('ours', key, fixedOut)), median(perEvent('minimal', key, fixedOut))];
    const limit = Math.max(CPU_TARGET.ratio * reference, CPU_TARGET.floorUs);
    rows.push({
      figure: `${label}: CPU per SSE event, ${who}, ${fixedOut ? `fixed cost out (less ${CLIENTS} calls of ${FIXED_EVENTS} events)` : 'all of it'}, against the minimal consumer, median`,
      unit: 'µs',
      ours: round(ours, 2),
      reference: round(reference, 2),
      target: `≤ max(${CPU_TARGET.ratio} × minimal, ${CPU_TARGET.floorUs} µs) = ${round(limit, 2)}`,
      met: ours <= limit,
    });
  }
}
rows.push({ figure: `${label}: peak RSS of the run host (VmHWM, whole bench), against the minimal consumer's`, unit: 'MiB', ours: round(hostPeakMiB), reference: round(minimalPeakMiB), target: '—' });

const all = (shape: 'big' | 'fixed', key: 'ms' | 'hostCpuMs' | 'allCpuMs') => ({ ours: results[shape].ours.map((m) => round(m[key], 0)), minimal: results[shape].minimal.map((m) => round(m[key], 0)) });
await report('clients', {
  clients: CLIENTS,
  rounds: ROUNDS,
  answerChars: ANSWER_CHARS,
  eventsPerStream: EVENTS,
  fixedEventsPerStream: FIXED_EVENTS,
  maxConcurrency: CLIENTS,
  rows,
  served: { ...served, hostPids: [...hostsSeen], serversAtEnd: serversAtEnd.length, leftAfterStop },
  wallMs: all('big', 'ms'),
  callMsMedian: { ours: results.big.ours.map((m) => round(median(m.callMs), 0)), minimal: results.big.minimal.map((m) => round(median(m.callMs), 0)) },
  settleMs: { ours: results.big.ours.map((m) => round(m.settleMs, 0)), minimal: results.big.minimal.map((m) => round(m.settleMs, 0)) },
  callMsMax: { ours: results.big.ours.map((m) => round(Math.max(...m.callMs), 0)), minimal: results.big.minimal.map((m) => round(Math.max(...m.callMs), 0)) },
  hostCpuMs: all('big', 'hostCpuMs'),
  allCpuMs: all('big', 'allCpuMs'),
  fixed: { wallMs: all('fixed', 'ms'), hostCpuMs: all('fixed', 'hostCpuMs'), allCpuMs: all('fixed', 'allCpuMs') },
  cpuPerEventUs: Object.fromEntries(
    (['hostCpuMs', 'allCpuMs'] as const).flatMap((key) =>
      [false, true].map((fixedOut) => [`${key === 'hostCpuMs' ? 'host' : 'all'}${fixedOut ? 'FixedOut' : ''}`, { ours: perEvent('ours', key, fixedOut).map((us) => round(us, 2)), minimal: perEvent('minimal', key, fixedOut).map((us) => round(us, 2)) }]),
    ),
  ),
  ...(hostProfile ? { hostProfile } : {}),
  rssMiB: { hostPeak: round(hostPeakMiB), minimalPeak: round(minimalPeakMiB), serversNow: { count: serverRss.length, sum: round(serverRss.reduce((a, b) => a + b, 0)), max: round(Math.max(...serverRss)) } },
});

/**
 * The run host of these settings, started as a face starts it (src/host/connect.ts: detached, in
 * its folder, with its V8 flags) but under --cpu-prof; it writes its profile when it exits. Its
 * name (a hash of its settings) is the one a host started with a wrong one reports.
 */
async function startProfiledHost(): Promise<string> {
  const dir = path.join(os.tmpdir(), `parallel-llm-clients-profile-${process.pid}`);
  const hostDir = env.PARALLEL_LLM_HOST_DIR!;
  await mkdir(hostDir, { recursive: true, mode: 0o700 });
  const bin = ourPaths[1]!;
  const said = spawnSync(process.execPath, [bin, 'host', 'none'], { cwd: hostDir, env, encoding: 'utf8' }).stdout;
  const id = /settings \((\w+)\)/.exec(said)?.[1];
  if (!id) throw new Error(`the run host did not say its name: ${said}`);
  const host = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--max-semi-space-size=4', '--liftoff-only', bin, 'host', id], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], cwd: hostDir, env });
  const line = await new Promise<string>((resolve) => host.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim())));
  host.stdout.destroy();
  host.unref();
  if (line !== 'ready') throw new Error(`the profiled run host said ${line}`);
  return dir;
}

/** Saves the host's profile in bench/profiles/ and returns its top frames. */
async function saveProfile(dir: string): Promise<{ file: string; samples: number; top: ReturnType<typeof topFrames> }> {
  const [name] = (await readdir(dir)).filter((file) => file.endsWith('.cpuprofile'));
  const text = await readFile(path.join(dir, name!), 'utf8');
  await rm(dir, { recursive: true, force: true });
  const file = path.join(import.meta.dirname, 'profiles', 'clients-host.cpuprofile');
  await writeFile(file, text);
  const profile = JSON.parse(text) as CpuProfile & { samples: number[] };
  return { file: path.relative(process.cwd(), file), samples: profile.samples.length, top: topFrames(profile, 25) };
}
