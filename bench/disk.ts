/**
 * `npm run bench -- disk`: what the file operations a call makes cost, on the file system the
 * benches write their run folders on (bench/run-folders.ts; TMPDIR moves it) against tmpfs
 * (/dev/shm: no disk at all, the floor). A call of one model and a synthesis creates six files
 * (its claim, its answer, three journal entries, final.md) and two folders, renames five files
 * into place (two of them over the journal's previous entry), links its claim and unlinks a
 * name; every figure with saving on carries these costs. Each step is timed alone, synchronous
 * (the process's CPU, user and system: mostly the kernel's work, with none of libuv's), over
 * BENCH_FILES (1,000) rounds that take the steps in turn, as calls do. Means of the per-round costs, in µs (what a
 * thousand calls pay is a thousand times the mean; the costs have long tails), medians beside.
 */
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { filesystemOf } from './filesystem.js';
import { median, percentile, report, round, type Row } from './lib.js';
import { runFoldersRoot, tempOutputDir } from './run-folders.js';

const ROUNDS = Number(process.env.BENCH_FILES ?? 1000);
const CONTENT = 'x'.repeat(2048); // a journal entry's size
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

const STEPS = {
  'creating a file whole (open O_EXCL, write 2 KiB, close)': (dirs: Dirs, i: number) => {
    const fd = openSync(path.join(dirs.staging, `${i}.tmp`), NEW_FILE, 0o600);
    writeSync(fd, CONTENT);
    closeSync(fd);
  },
  'giving it its name in the run folder (rename)': (dirs: Dirs, i: number) =>
    renameSync(path.join(dirs.staging, `${i}.tmp`), path.join(dirs.run, `${i}.md`)),
  'replacing a file with it (rename over the last one: its inode freed)': (dirs: Dirs, i: number) =>
    renameSync(path.join(dirs.run, `${i}.md`), path.join(dirs.run, 'run.json')),
  'making a folder (mkdir)': (dirs: Dirs, i: number) => mkdirSync(path.join(dirs.run, `folder-${i}`), 0o700),
  'linking a claim (link)': (dirs: Dirs, i: number) => linkSync(path.join(dirs.run, 'run.json'), path.join(dirs.run, `claim-${i}`)),
  'removing a name (unlink)': (dirs: Dirs, i: number) => unlinkSync(path.join(dirs.run, `claim-${i}`)),
};
type Step = keyof typeof STEPS;

interface Dirs {
  staging: string;
  run: string;
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** Each step's CPU in every round, in a new folder `base`. */
function measure(base: string): Record<Step, number[]> {
  const dirs = { staging: path.join(base, '.staging'), run: path.join(base, 'run') };
  mkdirSync(dirs.staging);
  mkdirSync(dirs.run);
  const costs = Object.fromEntries(Object.keys(STEPS).map((step) => [step, [] as number[]])) as Record<Step, number[]>;
  for (let i = 0; i < ROUNDS; i++) {
    for (const [step, run] of Object.entries(STEPS) as Array<[Step, (dirs: Dirs, i: number) => void]>) {
      const before = cpuUs();
      run(dirs, i);
      costs[step].push(cpuUs() - before);
    }
  }
  return costs;
}

const benchDisk = runFoldersRoot();
// The disk's folder is removed as the run folders are (bench/run-folders.ts); tmpfs's at once.
const ours = measure(await tempOutputDir());
const tmpfs = existsSync('/dev/shm') && filesystemOf('/dev/shm')?.type === 'tmpfs' ? mkdtempSync('/dev/shm/parallel-llm-disk-') : undefined;
let floor: Record<Step, number[]> | undefined;
try {
  floor = tmpfs ? measure(tmpfs) : undefined;
} finally {
  if (tmpfs) rmSync(tmpfs, { recursive: true, force: true });
}

const mean = (costs: number[]) => round(costs.reduce((sum, cost) => sum + cost, 0) / costs.length);
const stats = (costs: Record<Step, number[]>) =>
  Object.fromEntries(
    Object.entries(costs).map(([step, all]) => [
      step,
      { mean: mean(all), median: median(all), p90: percentile(all, 90), max: Math.max(...all) },
    ]),
  );
const rows: Row[] = (Object.keys(STEPS) as Step[]).map((step) => ({
  figure: `disk: ${step}, CPU, the benches' disk against tmpfs, mean`,
  unit: 'µs',
  ours: mean(ours[step]),
  reference: floor ? mean(floor[step]) : null,
  target: '—',
}));
await report('disk', {
  rounds: ROUNDS,
  filesystems: { benches: filesystemOf(benchDisk), reference: tmpfs ? filesystemOf('/dev/shm') : null },
  rows,
  costsUs: { benches: stats(ours), reference: floor ? stats(floor) : null },
});
