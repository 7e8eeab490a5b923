/**
 * Runs every benchmark in its own process against one installed copy of the package, then
 * prints where each result was saved. `npm run bench`; one bench: `npm run bench:<name>`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { installedBin } from './lib.js';

const BENCHES = ['startup', 'overhead', 'connections', 'concurrency', 'memory', 'openrouter', 'budget', 'network', 'soak'];
const only = process.argv.slice(2);

const { binPath, cleanup } = await installedBin();
const failed: string[] = [];
for (const bench of BENCHES.filter((name) => only.length === 0 || only.includes(name))) {
  process.stderr.write(`\n== ${bench}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, `${bench}.ts`)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_BIN: binPath },
  });
  if (run.status !== 0) failed.push(bench);
}
await cleanup();
process.stderr.write(`\nResults are in bench/results/*.json.${failed.length ? ` Failed: ${failed.join(', ')}` : ''}\n`);
process.exitCode = failed.length ? 1 : 0;
