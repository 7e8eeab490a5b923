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
 * - CPU per SSE event, of the run host alone and of every product process (host + 50 servers):
 *   everything the window took over the events it carried; the same with the calls' fixed cost
 *   out (the medians' difference from the same 50 calls with streams of 16 events); and the same
 *   with the CPU of the idle wait after the round counted too (target, each: ≤ max(2 × minimal, 5 µs));
 * - the run host's peak resident set (VmHWM, over the whole bench), beside the minimal consumer's.
 * A window's wall time ends at the last answer; its CPU runs on until the processes are idle
 * again (what a call leaves to do after its reply, such as final.md and the journal, is its cost
 * too). Events are the streams' content events (4,096 each). Every call of ours has its synthesis
 * (of its one answer, by a fake model answering at once), as every call does; the minimal
 * consumer has none. After each round (both sides, the big streams then the short ones) the
 * bench waits 35 s and measures what every process spends meanwhile: V8's memory reducer
 * collects a heap left grown by a burst 7 to 32 s after it (about 45 ms for each server), which
 * would otherwise fall in a later window at random.
 * Why 256 KiB: about 65,000 tokens of prose, as long as the longest answers models give, so that
 * the calls' fixed costs (the run folder, the journal, MCP, the synthesis) weigh no more than in
 * a real long answer, while a round's windows take a few seconds on 2 cores: the bench takes
 * about 3 minutes, most of it the idle waits. Shorter answers weigh the fixed costs more, longer
 * ones less (BENCH_ANSWER_KIB, below).
 * The servers start (and the host, at the warm-up's first call) before anything is measured.
 * The host gets PARALLEL_LLM_MAX_CONCURRENCY=50, so that every stream is read at once, as the
 * minimal consumer reads them (it has no limit): the figures are the host's own cost, not its
 * queue. Medians of BENCH_ROUNDS (3); BENCH_CLIENTS changes the 50, BENCH_ANSWER_KIB the 256,
 * BENCH_IDLE_MS the 35 s.
 * BENCH_HOST_PROFILE=1: the bench starts the run host itself, as a face would but under
 * `node --cpu-prof`, before the first call (the servers then find it, as they find a host another
 * face started), and saves its profile as bench/results/clients-host.cpuprofile, with its top
 * frames and where its busy samples went in the report. The timings of such a run are the profiled host's: not the figures.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RUNTIME_FLAGS } from '../src/host/runtime-flags.js';
import { stopHostsUnder } from '../test/support/hosts.js';
import {
  assertAnswered,
  connect,
  freshPrompt,
  installedBin,
  median,
  processPrompt,
  report,
  round,
  rssMiB,
  serverEnv,
  startFakeOpenRouter,
  startMinimalConsumer,
  tempOutputDir,
  topFrames,
  type CpuProfile,
  type Row,
  type Session,
} from './lib.js';
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
/** The wait after each round: V8's memory reducer is done within it. */
const IDLE_MS = Math.max(5000, Number(process.env.BENCH_IDLE_MS ?? 35_000));
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
  const batch = Array.from({ length: Math.min(START_BATCH, CLIENTS - i) }, (_, j) =>
    connect({ command: process.execPath, args: [binPath] }, env, `client-${i + j + 1}`),
  );
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
  for (let before = await cpuNs(pids); performance.now() - started < 5000;) {
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
  else
    assertAnswered(
      sessions[i]!,
      await processPrompt(sessions[i]!, { prompt: freshPrompt('clients'), models: [model] }, { timeout: 600_000 }),
      `client ${i + 1}'s call`,
    );
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
    for (const pid of measured.hosts) hostsSeen.add(pid);
  }
  return measured;
}

/** What every process of a side spent while nothing was asked of it, after a round. */
interface Idle {
  hostCpuMs: number;
  allCpuMs: number;
  /** Of that, the last 5 s: near nothing when the wait was long enough. */
  lastCpuMs: number;
}

/**
 * Waits IDLE_MS with nothing asked, and measures what each side's processes spend meanwhile:
 * V8's memory reducer collects a heap left grown by a burst 7 to 32 s after it (measured: a
 * server spends about 45 ms so), which would otherwise fall in a later window at random.
 */
async function idle(): Promise<Record<Side, Idle>> {
  const cpu = async () => {
    const { hosts, servers } = await productProcesses();
    return { host: await cpuNs(hosts), servers: await cpuNs(servers), minimal: await cpuNs([minimal.pid]) };
  };
  const start = await cpu();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS - 5000));
  const late = await cpu();
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const end = await cpu();
  const ms = (ns: number) => ns / 1e6;
  return {
    ours: {
      hostCpuMs: ms(end.host - start.host),
      allCpuMs: ms(end.host + end.servers - start.host - start.servers),
      lastCpuMs: ms(end.host + end.servers - late.host - late.servers),
    },
    minimal: {
      hostCpuMs: ms(end.minimal - start.minimal),
      allCpuMs: ms(end.minimal - start.minimal),
      lastCpuMs: ms(end.minimal - late.minimal),
    },
  };
}

const results: Record<'big' | 'fixed', Record<Side, Measured[]>> & { idle: Record<Side, Idle[]> } = {
  big: { ours: [], minimal: [] },
  fixed: { ours: [], minimal: [] },
  idle: { ours: [], minimal: [] },
};
/** A round: each side's 50 calls of the big streams, then of the short ones, the sides taking turns in which goes first; then the idle wait. */
async function measureRound(r: number, keep: boolean): Promise<void> {
  for (const side of r % 2 === 0 ? (['ours', 'minimal'] as const) : (['minimal', 'ours'] as const)) {
    const measured = await measureCalls(side, big);
    const fixedCalls = await measureCalls(side, fixed);
    if (keep) results.big[side].push(measured);
    if (keep) results.fixed[side].push(fixedCalls);
    process.stderr.write(
      `${keep ? `round ${r + 1}` : 'warm-up'}, ${CLIENTS} calls, ${side}: ${round(measured.ms, 0)} ms, CPU ${side === 'ours' ? `host ${round(measured.hostCpuMs, 0)} ms, all ` : ''}${round(measured.allCpuMs, 0)} ms${side === 'ours' ? `, ${measured.hosts!.length} host(s), ${measured.servers} servers` : ''}\n`,
    );
  }
  const quiet = await idle();
  if (keep) for (const side of ['ours', 'minimal'] as const) results.idle[side].push(quiet[side]);
  process.stderr.write(
    `  idle ${IDLE_MS / 1000} s after: ours host ${round(quiet.ours.hostCpuMs, 0)} ms, all ${round(quiet.ours.allCpuMs, 0)} ms; minimal ${round(quiet.minimal.allCpuMs, 0)} ms\n`,
  );
}

// Warm-up: the first call starts the run host, every server connects to it; both sides load their code paths.
await measureRound(0, false);
const servedByHost = sessions.filter((session) => session.stderrTail().includes('runs execute in the run host')).length;
for (let r = 0; r < ROUNDS; r++) await measureRound(r, true);

const { hosts: hostsAtEnd, servers: serversAtEnd } = await productProcesses();
const hostPeakMiB = hostsAtEnd.length === 1 ? await rssMiB(hostsAtEnd[0]!, 'VmHWM') : NaN;
const minimalPeakMiB = await rssMiB(minimal.pid, 'VmHWM');
const serverRss = await Promise.all(serversAtEnd.map((pid) => rssMiB(pid, 'VmRSS')));
for (const pid of hostsAtEnd) hostsSeen.add(pid);

// Stop every process: the servers (each client closes its own), then the host they shared, then whatever outlived both.
await Promise.all(sessions.map((session) => session.client.close()));
await stopHostsUnder(outputDir);
await minimal.close();
let leftAfterStop = await pidsRunning(ourPaths);
for (
  const waitUntil = performance.now() + 5000;
  leftAfterStop.length > 0 && performance.now() < waitUntil;
  leftAfterStop = await pidsRunning(ourPaths)
)
  await new Promise((resolve) => setTimeout(resolve, 50));
for (const pid of leftAfterStop) process.kill(pid, 'SIGKILL');
await fake.close();
await cleanup();
const hostProfile = profileDir === undefined ? undefined : await saveProfile(profileDir);

const medianOf = (shape: 'big' | 'fixed', side: Side, key: 'ms' | 'hostCpuMs' | 'allCpuMs') =>
  median(results[shape][side].map((measured) => measured[key]));
const bigEvents = CLIENTS * EVENTS;
/** µs per event: the window over its events (each round), or the medians' difference from the short calls' window over the difference in events. */
const perEvent = (side: Side, key: 'hostCpuMs' | 'allCpuMs') => results.big[side].map((measured) => (measured[key] * 1000) / bigEvents);
const fixedOut = (side: Side, key: 'hostCpuMs' | 'allCpuMs') =>
  ((medianOf('big', side, key) - medianOf('fixed', side, key)) * 1000) / (CLIENTS * (EVENTS - FIXED_EVENTS));
/** µs per event, of each round, with the idle CPU after the round counted too. */
const withIdle = (side: Side, key: 'hostCpuMs' | 'allCpuMs') =>
  results.big[side].map((measured, r) => ((measured[key] + results.idle[side][r]![key]) * 1000) / bigEvents);
const served = {
  hosts: hostsSeen.size,
  everyWindowOneHost: results.big.ours.concat(results.fixed.ours).every((measured) => measured.hosts!.length === 1),
  servedByHost,
};

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
  {
    figure: `${label}: wall time of the ${CLIENTS} calls, against the minimal streaming consumer, median`,
    unit: 'ms',
    ours: round(oursMs, 0),
    reference: round(minimalMs, 0),
    target: `≤ ${WALL_TARGET} × minimal`,
    met: oursMs <= WALL_TARGET * minimalMs,
  },
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
  const figures = [
    ['all of it (the window, to idle after the last answer)', median(perEvent('ours', key)), median(perEvent('minimal', key))],
    [`fixed cost out (less ${CLIENTS} calls of ${FIXED_EVENTS} events)`, fixedOut('ours', key), fixedOut('minimal', key)],
    [
      `all of it and the CPU of the ${IDLE_MS / 1000} s idle after each round (V8's memory reducer)`,
      median(withIdle('ours', key)),
      median(withIdle('minimal', key)),
    ],
  ] as const;
  for (const [how, ours, reference] of figures) {
    const limit = Math.max(CPU_TARGET.ratio * reference, CPU_TARGET.floorUs);
    rows.push({
      figure: `${label}: CPU per SSE event, ${who}, ${how}, against the minimal consumer, median`,
      unit: 'µs',
      ours: round(ours, 2),
      reference: round(reference, 2),
      target: `≤ max(${CPU_TARGET.ratio} × minimal, ${CPU_TARGET.floorUs} µs) = ${round(limit, 2)}`,
      met: ours <= limit,
    });
  }
}
rows.push({
  figure: `${label}: peak RSS of the run host (VmHWM, whole bench), against the minimal consumer's`,
  unit: 'MiB',
  ours: round(hostPeakMiB),
  reference: round(minimalPeakMiB),
  target: '—',
});

const all = (shape: 'big' | 'fixed', key: 'ms' | 'hostCpuMs' | 'allCpuMs') => ({
  ours: results[shape].ours.map((m) => round(m[key], 0)),
  minimal: results[shape].minimal.map((m) => round(m[key], 0)),
});
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
  callMsMedian: {
    ours: results.big.ours.map((m) => round(median(m.callMs), 0)),
    minimal: results.big.minimal.map((m) => round(median(m.callMs), 0)),
  },
  settleMs: { ours: results.big.ours.map((m) => round(m.settleMs, 0)), minimal: results.big.minimal.map((m) => round(m.settleMs, 0)) },
  callMsMax: {
    ours: results.big.ours.map((m) => round(Math.max(...m.callMs), 0)),
    minimal: results.big.minimal.map((m) => round(Math.max(...m.callMs), 0)),
  },
  hostCpuMs: all('big', 'hostCpuMs'),
  allCpuMs: all('big', 'allCpuMs'),
  fixed: { wallMs: all('fixed', 'ms'), hostCpuMs: all('fixed', 'hostCpuMs'), allCpuMs: all('fixed', 'allCpuMs') },
  cpuPerEventUs: Object.fromEntries(
    (['hostCpuMs', 'allCpuMs'] as const).map((key) => {
      const sides = (of: (side: Side, key: 'hostCpuMs' | 'allCpuMs') => number[]) => ({
        ours: of('ours', key).map((us) => round(us, 2)),
        minimal: of('minimal', key).map((us) => round(us, 2)),
      });
      return [
        key === 'hostCpuMs' ? 'host' : 'all',
        {
          window: sides(perEvent),
          withIdle: sides(withIdle),
          fixedOut: { ours: round(fixedOut('ours', key), 2), minimal: round(fixedOut('minimal', key), 2) },
        },
      ];
    }),
  ),
  idleAfterRoundMs: Object.fromEntries(
    (['ours', 'minimal'] as const).map((side) => [
      side,
      results.idle[side].map((quiet) => ({
        host: round(quiet.hostCpuMs, 0),
        all: round(quiet.allCpuMs, 0),
        last5s: round(quiet.lastCpuMs, 1),
      })),
    ]),
  ),
  ...(hostProfile ? { hostProfile } : {}),
  rssMiB: {
    hostPeak: round(hostPeakMiB),
    minimalPeak: round(minimalPeakMiB),
    serversNow: { count: serverRss.length, sum: round(serverRss.reduce((a, b) => a + b, 0)), max: round(Math.max(...serverRss)) },
  },
});

/**
 * The run host of these settings, started as a client starts it (src/host/connect.ts: detached, in
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
  const host = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...RUNTIME_FLAGS.host, bin, 'host', id], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    cwd: hostDir,
    env,
  });
  const line = await new Promise<string>((resolve) => host.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim())));
  host.stdout.destroy();
  host.unref();
  if (line !== 'ready') throw new Error(`the profiled run host said ${line}`);
  return dir;
}

/** Saves the host's profile in bench/results/ (not committed) and returns where its busy samples went and its top frames among them. */
async function saveProfile(
  dir: string,
): Promise<{ file: string; busySamples: number; where: Array<{ what: string; percent: number }>; top: ReturnType<typeof topFrames> }> {
  const [name] = (await readdir(dir)).filter((file) => file.endsWith('.cpuprofile'));
  const text = await readFile(path.join(dir, name!), 'utf8');
  await rm(dir, { recursive: true, force: true });
  const file = path.join(import.meta.dirname, 'results', 'clients-host.cpuprofile');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  const profile = JSON.parse(text) as CpuProfile;
  const busy = { nodes: profile.nodes.filter((node) => node.callFrame.functionName !== '(idle)') };
  return { file: path.relative(process.cwd(), file), ...whereTimeGoes(profile), top: topFrames(busy, 25) };
}

/**
 * The host's busy samples (idle left out) by what they were doing, each sample counted once, in
 * the first of these that its stack shows. Read from the bundle's function names; a stack is cut
 * where an await resumes, so the shares are approximate.
 */
function whereTimeGoes(profile: CpuProfile): { busySamples: number; where: Array<{ what: string; percent: number }> } {
  const kinds: Array<[string, (names: string[], files: string[]) => boolean]> = [
    ['garbage collector', (names) => names[0] === '(garbage collector)'],
    [
      'answer files (batched writes)',
      (names) => names.some((n) => ['writeBatches', 'appendAll', 'pump', 'takeBatches', 'flushFile', 'FileWriter', 'writer'].includes(n)),
    ],
    ['reading the streams (SSE, JSON.parse, redaction, the answer in memory)', (names) => names.includes('readStream')],
    ['the synthesis prompt', (names) => names.some((n) => ['buildSynthesisPrompt', 'synthesize'].includes(n))],
    [
      'run folder, journal, request index (files under time limits)',
      (names) =>
        names.some((n) =>
          [
            'limit',
            'writeTemporary',
            'save',
            'claim',
            'remakeBelow',
            'ensurePrivateDir',
            'readOwnFile',
            'checkRootDir',
            'createFile',
            'inFolders',
            'openNew',
            'readRecord',
            'publish',
          ].includes(n),
        ),
    ],
    [
      "MCP with the servers (the SDK, zod, the socket, the tools' own work)",
      (names) =>
        names.some((n) =>
          [
            '_onrequest',
            '_onresponse',
            '_transport.onmessage',
            'then.then.then.errorResponse.jsonrpc',
            'wrappedHandler',
            'executeToolHandler',
            'validateToolInput',
            'serializeMessage',
            'Socket._writeGeneric',
          ].includes(n),
        ),
    ],
    ['logging (pino)', (names) => names.includes('LOG')],
    ['HTTP (undici)', (_, files) => files.some((f) => f.startsWith('undici'))],
    ['the rest (program, module loading, timers, other)', () => true],
  ];
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map<string, number>(kinds.map(([what]) => [what, 0]));
  let busy = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0 || node.callFrame.functionName === '(idle)') continue;
    const stack: CpuProfile['nodes'] = [];
    for (let at: number | undefined = node.id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    const names = stack.map((frame) => frame.callFrame.functionName);
    const files = stack.map((frame) => path.basename(frame.callFrame.url));
    const [what] = kinds.find(([, shows]) => shows(names, files))!;
    counts.set(what, counts.get(what)! + hits);
    busy += hits;
  }
  return { busySamples: busy, where: [...counts].map(([what, hits]) => ({ what, percent: round((100 * hits) / busy) })) };
}
