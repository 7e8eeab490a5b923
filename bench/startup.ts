/**
 * Startup: from spawning a server to its answer to `initialize`, through the SDK's stdio
 * transport, as an MCP client starts every configured server. Ours, the reference and a
 * bare `node -e 0` take turns; medians of BENCH_RUNS (20) each, after one warm-up each. The
 * CPU time the server process used until then is reported too: on a busy machine it is a
 * steadier measure than the wall time.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  connect,
  cpuMs,
  interleaved,
  median,
  report,
  round,
  serversUnderTest,
  serverEnv,
  startFakeOpenRouter,
  tempOutputDir,
} from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TARGET_RATIO = 0.6;

const fake = await startFakeOpenRouter();
const { ours, reference, cleanup } = await serversUnderTest();
const env = serverEnv(fake, await tempOutputDir());

const cpu: Record<'ours' | 'reference', number[]> = { ours: [], reference: [] };

async function timeToInitialize(side: 'ours' | 'reference'): Promise<number> {
  const started = performance.now();
  const session = await connect(side === 'ours' ? ours : reference, env, 'startup-bench');
  const elapsed = performance.now() - started;
  cpu[side].push(await cpuMs(session.pid!));
  await session.close();
  return elapsed;
}

async function timeBareNode(): Promise<number> {
  const started = performance.now();
  await promisify(execFile)(process.execPath, ['-e', '0']);
  return performance.now() - started;
}

const measure = (side: 'ours' | 'reference' | 'bareNode') => (side === 'bareNode' ? timeBareNode() : timeToInitialize(side));
await interleaved(1, ['ours', 'reference', 'bareNode'], measure); // warms the file cache
cpu.ours.length = cpu.reference.length = 0;
const times = await interleaved(RUNS, ['ours', 'reference', 'bareNode'], measure);
await fake.close();
await cleanup();

const [oursMs, referenceMs] = [median(times.ours), median(times.reference)];
await report('startup', {
  runs: RUNS,
  rows: [
    {
      figure: 'spawn → initialize answered, median',
      unit: 'ms',
      ours: round(oursMs),
      reference: round(referenceMs),
      target: `≤ ${TARGET_RATIO} × reference (${round(referenceMs * TARGET_RATIO)})`,
      met: oursMs <= referenceMs * TARGET_RATIO,
    },
    {
      figure: 'CPU time of the server process until initialize answered, median',
      unit: 'ms',
      ours: median(cpu.ours),
      reference: median(cpu.reference),
      target: '—',
    },
  ],
  ratio: round(oursMs / referenceMs, 2),
  oursMinMaxMs: [round(Math.min(...times.ours)), round(Math.max(...times.ours))],
  referenceMinMaxMs: [round(Math.min(...times.reference)), round(Math.max(...times.reference))],
  bareNodeMedianMs: round(median(times.bareNode)),
});
