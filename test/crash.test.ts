import { spawn } from 'node:child_process';
import { readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/harness.js';

/**
 * Crash safety of the run folders (SPEC §6: "written completely or not at all"): a child
 * process writes large files of verifiable content through the real RunStore, and is
 * killed with SIGKILL at pseudo-random points of its writing. Whatever moment the kill lands on, a run
 * folder holds only complete files; temporary files may remain only in `.staging`.
 */

const projectRoot = path.resolve(import.meta.dirname, '..');
const writer = path.join(projectRoot, 'test', 'support', 'crash-writer.ts');
const KILLS = 5;
const SEED = 0x5eed;

/** A fixed pseudo-random sequence (a 32-bit LCG), so every run kills at the same point of the writing. */
function counts(count: number, max: number): number[] {
  let state = SEED;
  return Array.from({ length: count }, () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % max;
  });
}

interface Killed {
  runDir: string;
  /** The newest generation of each file that the writer reported complete before the kill. */
  reported: Map<string, number>;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Starts the writer and kills it with SIGKILL once it has reported `writes` complete writes: its
 * four lanes write without pause, so the other lanes are mid-write when the kill lands.
 */
async function writeAndKill(outputDir: string, seed: number, writes: number, tmp: string): Promise<Killed> {
  const child = spawn(process.execPath, ['--import', 'tsx', writer, outputDir, String(seed)], {
    cwd: projectRoot,
    // tsx caches what it compiles in the temporary folder unless told not to.
    env: { ...process.env, TMPDIR: tmp, TSX_DISABLE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const reported = new Map<string, number>();
  let runDir = '';
  let stderr = '';
  let buffered = '';
  let written = 0;
  let onEnough!: () => void;
  const enough = new Promise<void>((resolve) => {
    onEnough = resolve;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const [word, name, generation] = line.split(' ');
      if (word === 'run') runDir = name!;
      if (word === 'wrote') {
        reported.set(name!, Math.max(reported.get(name!) ?? 0, Number(generation)));
        if (++written === writes) onEnough();
      }
    }
  });
  const early = await Promise.race([enough.then(() => undefined), exited.then((signal) => ({ signal }))]);
  if (early) throw new Error(`the writer exited after ${written} of ${writes} writes (signal ${early.signal}): ${stderr}`);
  child.kill('SIGKILL');
  const signal = await exited;
  return { runDir, reported, signal, stderr };
}

/** The writer's format, checked independently: header `crash-writer <name> gen=<g> bytes=<n>`, then `<name>:<g>|` repeated, n bytes in all. */
function verify(name: string, bytes: Buffer): { generation: number } {
  const text = bytes.toString('latin1');
  const header = /^crash-writer (\S+) gen=(\d+) bytes=(\d+)\n/.exec(text);
  if (!header) throw new Error(`${name}: no header (${bytes.length} bytes: ${JSON.stringify(text.slice(0, 60))})`);
  const [line, headerName, generation, expectedBytes] = header;
  if (headerName !== name) throw new Error(`${name}: holds the content of ${headerName}`);
  if (bytes.length !== Number(expectedBytes)) throw new Error(`${name}: ${bytes.length} bytes, the header says ${expectedBytes}`);
  const unit = `${name}:${generation}|`;
  const body = text.slice(line.length);
  for (let at = 0; at < body.length; at += unit.length) {
    const piece = body.slice(at, at + unit.length);
    if (piece !== unit.slice(0, piece.length)) throw new Error(`${name}: corrupt at byte ${line.length + at}: ${JSON.stringify(piece)}`);
  }
  return { generation: Number(generation) };
}

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('run folders survive SIGKILL mid-write', () => {
  it(`after ${KILLS} kills at pseudo-random points of the writing, every file in the run folder is complete and valid, none is temporary, every reported write is on disk, and nothing is left in the temporary folder`, async () => {
    let leftovers = 0;
    const tmp = await tempDir('parallel-llm-crash-tmp-');
    for (const [round, extra] of counts(KILLS, 40).entries()) {
      const outputDir = await tempDir('parallel-llm-crash-');
      dirs.push(outputDir);
      const killed = await writeAndKill(outputDir, round + 1, 4 + extra, tmp);
      const context = `kill ${round + 1} after ${4 + extra} writes`;
      expect(killed.signal, `${context}: the writer must die by the kill, not exit (${killed.stderr})`).toBe('SIGKILL');
      expect(path.dirname(killed.runDir), context).toBe(outputDir);

      const entries = await readdir(killed.runDir, { withFileTypes: true });
      const names = entries.map((entry) => entry.name);
      expect(names.length, `${context}: files in the run folder`).toBeGreaterThan(0);
      for (const entry of entries) {
        expect(entry.isFile(), `${context}: ${entry.name} is a regular file`).toBe(true);
        expect(entry.name, `${context}: only final names, no temporary or partial file`).toMatch(/^file-\d{2}\.txt$/);
        const { generation } = verify(entry.name, await readFile(path.join(killed.runDir, entry.name)));
        expect(generation, `${context}: ${entry.name} is no older than its last reported write`).toBeGreaterThanOrEqual(
          killed.reported.get(entry.name) ?? 0,
        );
      }
      for (const name of killed.reported.keys()) expect(names, `${context}: a reported write is on disk`).toContain(name);

      // Everything else lives in the staging folder, outside every run folder.
      const top = await readdir(outputDir);
      expect(top.sort(), context).toEqual(['.staging', path.basename(killed.runDir)].sort());
      leftovers += (await readdir(path.join(outputDir, '.staging'))).length;
    }
    // The kills must land mid-write for this test to mean anything: some temporary files are left behind.
    expect(leftovers, 'temporary files left in .staging by the kills').toBeGreaterThan(0);
    expect(await readdir(tmp), 'files the writer left in the temporary folder').toEqual([]);
  }, 60_000);
});
