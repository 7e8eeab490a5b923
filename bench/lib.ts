/**
 * Shared pieces of the benchmarks: the installed package and the naive reference server, an
 * MCP session over stdio, the loopback fake OpenRouter, small statistics, and the report.
 * Every bench saves one JSON record in bench/results/NAME.json (not committed); the benches
 * that compare this server with the reference put their figures in `rows`, which `npm run
 * bench` prints as one table.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FakeOpenRouter } from '../test/support/fake-openrouter.js';
import { stopHostsUnder } from '../test/support/hosts.js';
import { serverEnv as sharedServerEnv } from '../test/support/server-env.js';
import { packAndInstall, projectRoot } from '../test/support/install.js';
import { filesystemOf } from './filesystem.js';
import { runFoldersRoot, tempOutputDir } from './run-folders.js';

export { startFakeOpenRouter } from '../test/support/fake-openrouter.js';
export { tempOutputDir } from './run-folders.js';

/** How to start a server: this package's installed bin, or the reference. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** The bin installed from the packed tarball; BENCH_BIN reuses one already installed. */
export async function installedBin(): Promise<{ binPath: string; cleanup: () => Promise<void> }> {
  if (process.env.BENCH_BIN) return { binPath: process.env.BENCH_BIN, cleanup: async () => undefined };
  const installed = await packAndInstall();
  return { binPath: installed.binPath, cleanup: () => rm(installed.dir, { recursive: true, force: true }) };
}

/**
 * Both servers of a side-by-side bench, started the same way: `node <entry>` with the same
 * node. Ours is the bin from the packed tarball; the reference is bench/reference/server.js.
 */
export async function serversUnderTest(): Promise<{ ours: ServerCommand; reference: ServerCommand; cleanup: () => Promise<void> }> {
  const { binPath, cleanup } = await installedBin();
  return {
    ours: { command: process.execPath, args: [binPath] },
    reference: { command: process.execPath, args: [path.join(import.meta.dirname, 'reference', 'server.js')] },
    cleanup,
  };
}

/**
 * The server's environment for a bench. Logging stays at its default level (the reference
 * logs nothing; ours is measured as users run it). The budget is long, so that every call
 * runs to its end instead of returning `running`.
 */
export const serverEnv = (fake: FakeOpenRouter, outputDir: string, extra: Record<string, string> = {}) =>
  sharedServerEnv(fake, outputDir, { PARALLEL_LLM_BUDGET_MS: '600000', ...extra });

/** A prompt no earlier call asked, so no server can answer it from a previous run. */
let prompts = 0;
export const freshPrompt = (label = 'bench') => `${label} ${process.pid}-${++prompts}: what is 2 + 2?`;

export interface Session {
  client: Client;
  pid: number | null;
  /** The last 64 kB the server wrote on stderr: for a failure's message, or a probe's report. */
  stderrTail(): string;
  close(): Promise<void>;
}

const STDERR_TAIL_CHARS = 64 * 1024;

/**
 * Spawns a server as an MCP client does (stderr piped and read) and connects the SDK's Client.
 * `close` ends the server and the run host it started for the session's output folder.
 */
export async function connect(server: ServerCommand | string, env: Record<string, string>, clientName = 'bench'): Promise<Session> {
  const { command, args } = typeof server === 'string' ? { command: server, args: [] } : server;
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS)));
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  const close = async () => {
    await client.close();
    // Our server's run host outlives it (that is its point): a bench ends what it started.
    if (env.PARALLEL_LLM_OUTPUT_DIR) await stopHostsUnder(env.PARALLEL_LLM_OUTPUT_DIR);
  };
  return { client, pid: transport.pid, stderrTail: () => tail, close };
}

/** What the benches read of a result; both servers' results have the text, only ours the rest. */
export interface ResultData {
  status?: string;
  run_folder?: string | null;
  models?: Array<{ status: string; file?: string; error?: { kind: string } }>;
}

export async function processPrompt(
  session: Session,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[2] = {},
): Promise<{ result: CallToolResult; data: ResultData }> {
  const result = (await session.client.callTool({ name: 'process_prompt', arguments: args }, undefined, options)) as CallToolResult;
  return { result, data: (result.structuredContent ?? {}) as ResultData };
}

/** Throws unless the call produced a whole answer: our status `complete`, or the reference's text without isError. */
export function assertAnswered(session: Session, { result, data }: { result: CallToolResult; data: ResultData }, what: string): void {
  if (!result.isError && (data.status === undefined || data.status === 'complete')) return;
  const text = result.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .slice(0, 500);
  throw new Error(`${what} ended ${data.status ?? 'in error'}: ${text}\n${session.stderrTail()}`);
}

/** The kernel's record of a process's resident set: its peak (VmHWM) or now (VmRSS), in MiB. */
export async function rssMiB(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024;
}

/** CPU time (user + system) a process has used so far, in ms; the kernel counts it in ticks of 10 ms (USER_HZ is 100). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command's name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const TICK_MS = 10;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: number[]) => percentile(values, 50);
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export function machine() {
  return {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGiB: round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: os.loadavg().map((load) => round(load, 2)),
    /** Where the run folders are: what every figure with saving on pays for its files. */
    runFolders: filesystemOf(runFoldersRoot()),
  };
}

/** One figure measured on both sides in the same run (null: the reference has no such figure). `met` is undefined when the figure has no target. */
export interface Row {
  figure: string;
  unit: string;
  ours: number;
  reference: number | null;
  target: string;
  met?: boolean;
}

/** Prints the figures and saves them as bench/results/NAME.json. */
export async function report(name: string, figures: Record<string, unknown> & { rows?: Row[] }): Promise<void> {
  const record = { bench: name, at: new Date().toISOString(), machine: machine(), ...figures };
  await mkdir(path.dirname(resultsFile(name)), { recursive: true });
  await writeFile(resultsFile(name), `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
}

export const resultsFile = (name: string) => path.join(projectRoot, 'bench', 'results', `${name}.json`);

/**
 * Measures each side `rounds` times, alternating which goes first in each round, so that
 * drift in the machine's speed hits both sides alike. Returns every side's measurements.
 */
export async function interleaved<Side extends string>(
  rounds: number,
  sides: readonly Side[],
  measure: (side: Side, round: number) => Promise<number>,
): Promise<Record<Side, number[]>> {
  const results = Object.fromEntries(sides.map((side) => [side, [] as number[]])) as Record<Side, number[]>;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) results[side].push(await measure(side, round));
  }
  return results;
}

/**
 * The minimal streaming consumer (bench/reference/minimal-consumer.js) as a long-lived process:
 * one line per call in, one line per call out. Calls overlap: each is served as its line comes,
 * so many calls at once read many streams at once.
 */
export async function startMinimalConsumer(environment: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'reference', 'minimal-consumer.js')], {
    env: environment,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = new Map<number, () => void>();
  createInterface({ input: child.stdout }).on('line', (line) => waiting.get((JSON.parse(line) as { id: number }).id)?.());
  const dir = await tempOutputDir();
  let calls = 0;
  return {
    pid: child.pid!,
    ask: (models: string[]) =>
      new Promise<void>((resolve) => {
        const id = ++calls;
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ id, models, dir })}\n`);
      }),
    close: async () => {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** What the benches read of a `node --cpu-prof` profile. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
    children?: number[];
  }>;
}

/** The `top` frames with the most samples of their own, as a share of all samples. */
export function topFrames(profile: CpuProfile, top: number): Array<{ frame: string; selfPercent: number }> {
  const byFrame = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const frame = `${functionName || '(anonymous)'} ${path.basename(url)}:${lineNumber + 1}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + hits);
  }
  return [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, hits]) => ({ frame, selfPercent: round((100 * hits) / total) }));
}
