/**
 * `npm run bench`: the side-by-side benches (this server and the naive reference in one run,
 * against one installed copy of the package), each in its own process, then one table of
 * their figures on stdout. `npm run bench -- NAME ...` runs the benches named, `all` every one.
 * Each bench's details are saved in bench/results/NAME.json.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { installedBin, resultsFile, type Row } from './lib.js';

/** The benches that measure this server beside the reference. */
const SIDE_BY_SIDE = ['startup', 'overhead', 'streaming', 'memory', 'huge', 'scaling', 'connections', 'clients'];
/** Benches of this server alone: a cold npx, where a call's time goes, the concurrency limit, the client, budgets, TLS (root needed), a long soak, a CPU profile, the disk's cost. */
const ALONE = ['cold-npx', 'reply-path', 'concurrency', 'openrouter', 'runs', 'network', 'soak', 'profile', 'disk'];

const asked = process.argv.slice(2);
const benches = asked.length === 0 ? SIDE_BY_SIDE : asked.includes('all') ? [...SIDE_BY_SIDE, ...ALONE] : asked;
const unknown = benches.filter((name) => ![...SIDE_BY_SIDE, ...ALONE].includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench ${unknown.join(', ')}; the benches are ${[...SIDE_BY_SIDE, ...ALONE].join(', ')}\n`);
  process.exit(2);
}

const { binPath, cleanup } = await installedBin();
// Every bench's run folders, removed once all are done: never while the next bench runs (bench/run-folders.ts).
const runFolders = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-bench-runs-'));
const removeRunFolders = () => rmSync(runFolders, { recursive: true, force: true });
// Ctrl-C reaches the running bench too; once it has ended, the folders go.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    removeRunFolders();
    process.exit(code);
  });
}
const failed: string[] = [];
const rows: Row[] = [];
try {
  for (const bench of benches) {
    process.stderr.write(`\n== ${bench}\n`);
    await rm(resultsFile(bench), { force: true });
    // Each bench's own report goes to stderr, so that stdout carries only the table.
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, `${bench}.ts`)], {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, BENCH_BIN: binPath, BENCH_RUN_FOLDERS: runFolders },
    });
    if (run.status !== 0) failed.push(bench);
    else rows.push(...((JSON.parse(await readFile(resultsFile(bench), 'utf8')) as { rows?: Row[] }).rows ?? []));
  }
} finally {
  removeRunFolders();
  await cleanup();
}

const cell = (value: number | null, unit: string) => (value === null ? '—' : unit === '×' ? `${value}×` : `${value} ${unit}`);
const ratio = (row: Row) =>
  row.reference === null || row.reference <= 0 || row.unit === '×' ? '—' : `${Math.round((row.ours / row.reference) * 100) / 100}×`;
const verdict = (met: boolean | undefined) => (met === undefined ? '—' : met ? 'yes' : 'no');
if (rows.length > 0) {
  const lines = ['| figure | ours | reference | ours ÷ reference | target | met? |', '|---|---|---|---|---|---|'];
  for (const row of rows)
    lines.push(
      `| ${row.figure} | ${cell(row.ours, row.unit)} | ${cell(row.reference, row.unit)} | ${ratio(row)} | ${row.target} | ${verdict(row.met)} |`,
    );
  process.stdout.write(`\n${lines.join('\n')}\n`);
}
process.stderr.write(`\nDetails are in bench/results/*.json.${failed.length ? ` Failed: ${failed.join(', ')}` : ''}\n`);
process.exitCode = failed.length ? 1 : 0;
