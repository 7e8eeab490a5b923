/** Startup: from spawning the installed bin to `initialize` answered, median of 10. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installedBin, median, report, round, serverEnv, startFakeOpenRouter, tempOutputDir } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const fake = await startFakeOpenRouter();
const { binPath, cleanup } = await installedBin();
const env = serverEnv(fake, await tempOutputDir());
const times: number[] = [];
for (let i = 0; i < RUNS + 1; i++) {
  const started = performance.now();
  const client = new Client({ name: 'startup-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: binPath, env, stderr: 'ignore' }));
  const elapsed = performance.now() - started;
  if (i > 0) times.push(elapsed); // the first run warms the file cache
  await client.close();
}
const nodeBaseline: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['-e', '0']);
  nodeBaseline.push(performance.now() - started);
}
await fake.close();
await cleanup();
await report('startup', {
  runs: RUNS,
  medianMs: round(median(times)),
  minMs: round(Math.min(...times)),
  maxMs: round(Math.max(...times)),
  bareNodeMedianMs: round(median(nodeBaseline)),
  goalMs: 120,
});
