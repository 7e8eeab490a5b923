/**
 * A new user's first start: `npx -y --package=<tarball> parallel-llm-mcp --version` with an
 * empty npm cache each time, as on a machine that has never run it. Reports the wall time of
 * the whole command (npx's install included) over BENCH_RUNS (5) runs, and what npx installed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { packAndInstall, packagesNpxInstalled } from '../test/support/install.js';
import { median, report, round } from './lib.js';
import { removeLater } from './run-folders.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TARGET_MS = 3000;
const TARGET_PACKAGES = 5;

const packed = await packAndInstall();
const times: number[] = [];
let installed: string[] = [];
for (let run = 0; run < RUNS; run++) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-cold-npx-'));
  const npmCache = path.join(dir, 'npm-cache');
  const started = performance.now();
  await promisify(execFile)('npx', ['-y', `--package=${packed.tarball}`, 'parallel-llm-mcp', '--version'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', npm_config_cache: npmCache, npm_config_update_notifier: 'false' },
  });
  times.push(performance.now() - started);
  installed = packagesNpxInstalled(npmCache);
  // Not removed now: the next run would install into a disk still busy with the removal (bench/run-folders.ts).
  await removeLater(dir);
}
await removeLater(packed.dir);

await report('cold-npx', {
  runs: RUNS,
  medianMs: round(median(times)),
  maxMs: round(Math.max(...times)),
  targetMs: TARGET_MS,
  met: Math.max(...times) <= TARGET_MS && installed.length <= TARGET_PACKAGES,
  packagesInstalled: installed,
  targetPackages: TARGET_PACKAGES,
});
