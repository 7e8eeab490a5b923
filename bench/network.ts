/**
 * A realistic network: the fake OpenRouter over TLS, in its own network namespace, behind
 * a simulated 40 ms round trip; and, in the same run, the pooled client (one
 * OpenRouterClient, one undici Agent, for every call, as the product does) against a
 * client-per-call design (a new OpenRouterClient for each model call, closed after it, as
 * the original Python project created a new HTTP client per call).
 *
 *   sudo npm run bench:network        (root: it creates a namespace and a link)
 *
 * Network: a namespace of our own holds the fake at 10.200.0.1; the bench (root namespace)
 * reaches it from 10.200.0.2. First choice: a veth pair with `tc netem delay 20ms` on both
 * ends. When the kernel has no netem, a userspace delay line (bench/support/delay-line.py)
 * between two TUN devices delays every IP packet 20 ms each way instead: the TCP and TLS
 * handshakes pay the round trip too, as they would on a real link. The report says which
 * was used, why, and the round trip measured across it. Everything is torn down at exit,
 * on failure and on SIGINT/SIGTERM.
 *
 * Workload for each design: NETWORK_CALLS (10) tool calls in sequence, each 5 models in
 * parallel (each answers after 50 ms of server time) then 1 synthesizer call: 60 upstream
 * requests. NETWORK_ROUNDS (3) rounds, alternating which design goes first; each design
 * run is a fresh client process trusting the self-signed certificate through
 * NODE_EXTRA_CA_CERTS (verification stays on), warmed up with a throwaway client before
 * the measured run, so process cold start is not counted and every run starts with no
 * connection. Connections and TLS handshakes are counted by the server, around the
 * measured run only.
 * NETWORK_SIM=auto|netem|delay-line picks the simulation (auto: netem when it works).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import tls from 'node:tls';
import { projectRoot } from '../test/support/install.js';
import { median, percentile, report, round } from './lib.js';

const ONE_WAY_DELAY_MS = 20;
const SERVER_DELAY_MS = 50;
const MODELS = 5;
const CALLS = Number(process.env.NETWORK_CALLS ?? 10);
const ROUNDS = Number(process.env.NETWORK_ROUNDS ?? 3);
const SIMULATION = process.env.NETWORK_SIM ?? 'auto';
const SERVER_IP = '10.200.0.1';
const CLIENT_IP = '10.200.0.2';
const PREFIX = 24;

const tag = String(process.pid % 100_000);
const NS = `plm-net-${tag}`;
const CLIENT_DEV = `plm${tag}c`; // root namespace end
const SERVER_DEV = `plm${tag}s`; // moved into NS

type Design = 'pooled' | 'client-per-call';
interface Counters {
  connections: number;
  tlsHandshakes: number;
  requests: number;
  maxInFlight: number;
  aborted: number;
}
interface ClientRun {
  design: Design;
  wallMs: number;
  callMs: number[];
  requestMs: number[];
  attempts: number;
  failures: number;
}

// ---- teardown: synchronous, so it also runs from 'exit' and signal handlers ----

const teardown: Array<{ what: string; run: () => void }> = [];
let tornDown = false;
function cleanup(): void {
  if (tornDown) return;
  tornDown = true;
  while (teardown.length > 0) {
    const step = teardown.pop()!;
    try {
      step.run();
    } catch {
      // Already gone (a child that exited, a device deleted with its namespace).
    }
  }
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    cleanup();
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  });
}

function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (caught) {
    const error = caught as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')}: ${(error.stderr || error.message).trim()}`);
  }
}
const ip = (...args: string[]) => run('ip', args);
const inNs = (command: string, ...args: string[]) => run('ip', ['netns', 'exec', NS, command, ...args]);

function killOnTeardown(child: ChildProcess, what: string): void {
  teardown.push({
    what,
    run: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
    },
  });
}

/** Reads a child's stdout one line at a time, with a time limit on each wait. */
function lines(stream: Readable, name: string) {
  const queue: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const reader = createInterface({ input: stream });
  reader.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : queue.push(line)));
  reader.on('close', () => {
    closed = true;
    for (const resolve of waiting.splice(0)) resolve(undefined);
  });
  return async (timeoutMs = 30_000): Promise<string> => {
    const line = await new Promise<string | undefined>((resolve, reject) => {
      if (queue.length > 0) return resolve(queue.shift());
      if (closed) return resolve(undefined);
      const timer = setTimeout(() => reject(new Error(`${name}: no output within ${timeoutMs} ms`)), timeoutMs);
      waiting.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
    if (line === undefined) throw new Error(`${name} ended without the expected output`);
    return line;
  };
}

// ---- the network ----

function preflight(): void {
  if (process.getuid?.() !== 0) throw new Error('bench:network must run as root: it creates a network namespace and a link');
  for (const tool of ['ip', 'openssl']) run('sh', ['-c', `command -v ${tool}`]);
  const taken = ip('-4', '-o', 'addr', 'show') + ip('-4', 'route', 'show');
  if (taken.includes('10.200.0.')) throw new Error('10.200.0.0/24 is already in use in the root namespace; not touching it');
}

function addresses(): void {
  // IPv4 only: keeps IPv6 neighbour discovery chatter off the link (best effort).
  for (const [dev, inNamespace] of [
    [CLIENT_DEV, false],
    [SERVER_DEV, true],
  ] as const) {
    const knob = `/proc/sys/net/ipv6/conf/${dev}/disable_ipv6`;
    try {
      if (inNamespace) inNs('sh', '-c', `echo 1 > ${knob}`);
      else writeFileSync(knob, '1');
    } catch {
      // No IPv6 in this kernel: nothing to quieten.
    }
  }
  ip('addr', 'add', `${CLIENT_IP}/${PREFIX}`, 'dev', CLIENT_DEV);
  ip('link', 'set', CLIENT_DEV, 'up');
  ip('-n', NS, 'addr', 'add', `${SERVER_IP}/${PREFIX}`, 'dev', SERVER_DEV);
  ip('-n', NS, 'link', 'set', SERVER_DEV, 'up');
  ip('-n', NS, 'link', 'set', 'lo', 'up');
}

/** A veth pair with netem on both ends; or, when netem is missing, nothing left behind and the reason. */
function tryNetem(): { ok: true } | { ok: false; reason: string } {
  ip('link', 'add', CLIENT_DEV, 'type', 'veth', 'peer', 'name', SERVER_DEV);
  const removeVeth = () => void ip('link', 'del', CLIENT_DEV);
  try {
    ip('link', 'set', SERVER_DEV, 'netns', NS);
    addresses();
    run('tc', ['qdisc', 'add', 'dev', CLIENT_DEV, 'root', 'netem', 'delay', `${ONE_WAY_DELAY_MS}ms`]);
    inNs('tc', 'qdisc', 'add', 'dev', SERVER_DEV, 'root', 'netem', 'delay', `${ONE_WAY_DELAY_MS}ms`);
  } catch (caught) {
    try {
      removeVeth(); // deletes both ends, wherever the peer is
    } catch {
      // never created
    }
    return { ok: false, reason: (caught as Error).message };
  }
  teardown.push({ what: 'veth pair', run: removeVeth });
  return { ok: true };
}

async function startDelayLine(): Promise<{ stats: () => Promise<unknown> }> {
  const child = spawn(
    'python3',
    [path.join(projectRoot, 'bench/support/delay-line.py'), CLIENT_DEV, SERVER_DEV, String(ONE_WAY_DELAY_MS)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  // Teardown runs last-in first-out: stop the delay line, then delete what is left of its devices.
  teardown.push({ what: 'delay line devices', run: () => void ip('link', 'del', CLIENT_DEV) });
  killOnTeardown(child, 'delay line');
  const next = lines(child.stdout!, 'delay line');
  if ((await next(10_000)) !== 'ready') throw new Error('the delay line did not start');
  ip('link', 'set', SERVER_DEV, 'netns', NS);
  addresses();
  return {
    stats: async () => {
      child.stdin!.end();
      return JSON.parse(await next(10_000)) as unknown;
    },
  };
}

// ---- measurements across the link ----

async function tcpConnectMs(port: number): Promise<number> {
  const started = performance.now();
  const socket = net.connect(port, SERVER_IP);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const elapsed = performance.now() - started;
  socket.destroy();
  return elapsed;
}

async function echoRoundTrips(port: number, count: number): Promise<number[]> {
  const socket = net.connect(port, SERVER_IP);
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const back = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write('x');
    await back;
    samples.push(performance.now() - started);
  }
  socket.destroy();
  return samples;
}

/** One full TLS handshake from here, verifying the certificate: its time and protocol. */
async function tlsHandshake(port: number, ca: string): Promise<{ ms: number; protocol: string | null }> {
  const started = performance.now();
  const socket = tls.connect({ host: SERVER_IP, port, ca });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const ms = performance.now() - started;
  const protocol = socket.getProtocol();
  socket.destroy();
  return { ms, protocol };
}

const summary = (values: number[]) => ({
  n: values.length,
  median: round(median(values)),
  p95: round(percentile(values, 95)),
  min: round(Math.min(...values)),
  max: round(Math.max(...values)),
});

// ---- the bench ----

/** One design's run in a fresh client process; the server's counters are read around it. */
async function runClient(
  design: Design,
  url: string,
  certPath: string,
  counters: () => Promise<Counters>,
): Promise<{ run: ClientRun; server: Counters }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/support/network-client.ts', design, url, String(CALLS), String(MODELS)],
    {
      cwd: projectRoot,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: certPath },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  killOnTeardown(child, `${design} client`);
  const next = lines(child.stdout!, `${design} client`);
  if (!(JSON.parse(await next(60_000)) as { warm?: boolean }).warm) throw new Error(`${design} client did not warm up`);
  const before = await counters();
  child.stdin!.end('go\n');
  const result = JSON.parse(await next(120_000)) as ClientRun;
  await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  const after = await counters();
  const server = {
    connections: after.connections - before.connections,
    tlsHandshakes: after.tlsHandshakes - before.tlsHandshakes,
    requests: after.requests - before.requests,
    maxInFlight: after.maxInFlight,
    aborted: after.aborted - before.aborted,
  };
  return { run: result, server };
}

async function main(): Promise<void> {
  preflight();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plm-network-'));
  teardown.push({ what: 'temp dir', run: () => rmSync(dir, { recursive: true, force: true }) });
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyPath,
    '-out',
    certPath,
    '-subj',
    '/CN=fake-openrouter',
    '-addext',
    `subjectAltName=IP:${SERVER_IP}`,
    '-days',
    '1',
  ]);

  ip('netns', 'add', NS);
  teardown.push({ what: 'namespace', run: () => void ip('netns', 'del', NS) });

  let simulation: string;
  let netemUnavailable: string | undefined;
  let delayLine: Awaited<ReturnType<typeof startDelayLine>> | undefined;
  const netem = SIMULATION === 'delay-line' ? { ok: false as const, reason: 'skipped (NETWORK_SIM=delay-line)' } : tryNetem();
  if (netem.ok) {
    simulation = `veth pair ${CLIENT_IP} (root namespace) <-> ${SERVER_IP} (namespace ${NS}), tc netem delay ${ONE_WAY_DELAY_MS}ms on both ends`;
  } else {
    if (SIMULATION === 'netem') throw new Error(`netem is not available: ${netem.reason}`);
    netemUnavailable = netem.reason;
    process.stderr.write(`netem not used (${netem.reason}); using the userspace TUN delay line\n`);
    delayLine = await startDelayLine();
    simulation =
      `TUN pair ${CLIENT_IP} (root namespace) <-> ${SERVER_IP} (namespace ${NS}) joined by a userspace delay line ` +
      `(bench/support/delay-line.py) holding every IP packet ${ONE_WAY_DELAY_MS} ms each way (netem not used: see netemUnavailable)`;
  }

  const fake = spawn(
    'ip',
    [
      'netns',
      'exec',
      NS,
      process.execPath,
      '--import',
      'tsx',
      'bench/support/tls-fake.ts',
      SERVER_IP,
      keyPath,
      certPath,
      String(SERVER_DELAY_MS),
    ],
    {
      cwd: projectRoot,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  killOnTeardown(fake, 'fake');
  const fakeLine = lines(fake.stdout!, 'fake');
  const { url, echoPort } = JSON.parse(await fakeLine()) as { url: string; echoPort: number };
  const counters = async (): Promise<Counters> => {
    fake.stdin!.write('counters\n');
    return JSON.parse(await fakeLine()) as Counters;
  };

  // The link, measured: TCP connect is one round trip (SYN, SYN-ACK), so is a 1-byte echo.
  const connectMs: number[] = [];
  for (let i = 0; i < 15; i++) connectMs.push(await tcpConnectMs(echoPort));
  const echoMs = await echoRoundTrips(echoPort, 20);
  const port = Number(new URL(url).port);
  const handshakes: Array<{ ms: number; protocol: string | null }> = [];
  for (let i = 0; i < 5; i++) handshakes.push(await tlsHandshake(port, readFileSync(certPath, 'utf8')));

  const runs: Record<Design, Array<{ run: ClientRun; server: Counters }>> = { pooled: [], 'client-per-call': [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order: Design[] = r % 2 === 0 ? ['pooled', 'client-per-call'] : ['client-per-call', 'pooled'];
    for (const design of order) {
      const { run: result, server } = await runClient(design, url, certPath, counters);
      runs[design].push({ run: result, server });
      process.stderr.write(
        `round ${r + 1} ${design}: ${round(result.wallMs)} ms, ${server.connections} TCP connections, ${server.tlsHandshakes} TLS handshakes, ${server.requests} requests\n`,
      );
    }
  }

  fake.stdin!.end();
  await fakeLine().catch(() => undefined);
  const delayLineStats = delayLine ? await delayLine.stats() : undefined;

  const describe = (design: Design) => {
    const list = runs[design];
    const wall = list.map((entry) => entry.run.wallMs);
    return {
      tcpConnections: list.map((entry) => entry.server.connections),
      tlsHandshakes: list.map((entry) => entry.server.tlsHandshakes),
      upstreamRequests: list.map((entry) => entry.server.requests),
      totalWallMs: wall.map((ms) => round(ms)),
      totalWallMsMedian: round(median(wall)),
      perCallMs: summary(list.flatMap((entry) => entry.run.callMs)),
      // The first call of each run opens the pooled client's connections (the client process is warm).
      firstCallMs: list.map((entry) => round(entry.run.callMs[0]!)),
      perCallMsAfterFirst: summary(list.flatMap((entry) => entry.run.callMs.slice(1))),
      perUpstreamRequestMs: summary(list.flatMap((entry) => entry.run.requestMs)),
      failures: list.reduce((sum, entry) => sum + entry.run.failures, 0),
      retries:
        list.reduce((sum, entry) => sum + entry.run.attempts, 0) -
        list.reduce((sum, entry) => sum + entry.run.requestMs.length - entry.run.failures, 0),
      abortedOnServer: list.reduce((sum, entry) => sum + entry.server.aborted, 0),
    };
  };
  const pooled = describe('pooled');
  const perCall = describe('client-per-call');

  await report('network', {
    network: {
      simulation,
      netemUnavailable,
      oneWayDelayMs: ONE_WAY_DELAY_MS,
      intendedRttMs: 2 * ONE_WAY_DELAY_MS,
      measuredRttMs: {
        tcpConnect: summary(connectMs),
        echo1Byte: summary(echoMs),
        note: 'ping is not used: TCP connect (SYN/SYN-ACK) and a 1-byte echo are each one round trip across the same link',
      },
      rttCheck:
        Math.abs(median(connectMs) - 2 * ONE_WAY_DELAY_MS) <= 0.25 * 2 * ONE_WAY_DELAY_MS
          ? 'ok: the measured round trip is within 25% of the intended one'
          : `WARNING: measured ${round(median(connectMs))} ms against ${2 * ONE_WAY_DELAY_MS} ms intended; the simulation is not doing what it says`,
      tlsHandshakeFromBench: { ...summary(handshakes.map((h) => h.ms)), protocol: handshakes[0]?.protocol },
      delayLine: delayLineStats,
    },
    workload: {
      callsPerRun: CALLS,
      modelsPerCall: MODELS,
      synthesizerCallsPerCall: 1,
      upstreamRequestsPerRun: CALLS * (MODELS + 1),
      serverDelayMs: SERVER_DELAY_MS,
      rounds: ROUNDS,
      order:
        'rounds alternate which design runs first; each run is a fresh client process, warmed up (one request through a throwaway client, not counted) before the measured run',
      tls: 'HTTPS, self-signed RSA-2048 certificate trusted through NODE_EXTRA_CA_CERTS, verification on',
      pooledClient: 'one OpenRouterClient (one undici Agent, 5 connections) for every call',
      clientPerCall: 'a new OpenRouterClient for each model call, closed after it',
    },
    perDesign: { pooled, 'client-per-call': perCall },
    comparison: {
      wallTimeRatio: round(perCall.totalWallMsMedian / pooled.totalWallMsMedian, 2),
      extraMsPerCallMedian: round(perCall.perCallMs.median - pooled.perCallMs.median),
      extraMsPerCallAfterFirstMedian: round(perCall.perCallMsAfterFirst.median - pooled.perCallMsAfterFirst.median),
      extraMsPerUpstreamRequestMedian: round(perCall.perUpstreamRequestMs.median - pooled.perUpstreamRequestMs.median),
    },
  });
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench:network failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
} finally {
  cleanup();
}
