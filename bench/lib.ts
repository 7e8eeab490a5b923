/**
 * Shared pieces of the benchmarks: the installed package, an MCP session over stdio, the
 * loopback fake OpenRouter, and small statistics. Every bench prints one JSON object of
 * figures and saves it in bench/results/ (not committed).
 */
import { rmSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StructuredResult } from '../src/tool.js';
import type { FakeOpenRouter } from '../test/support/fake-openrouter.js';
import { serverEnv as sharedServerEnv } from '../test/support/server-env.js';
import { packAndInstall, projectRoot } from '../test/support/install.js';

export { startFakeOpenRouter } from '../test/support/fake-openrouter.js';

/** The bin installed from the packed tarball; BENCH_BIN reuses one already installed. */
export async function installedBin(): Promise<{ binPath: string; cleanup: () => Promise<void> }> {
  if (process.env.BENCH_BIN) return { binPath: process.env.BENCH_BIN, cleanup: async () => undefined };
  const installed = await packAndInstall();
  return { binPath: installed.binPath, cleanup: () => rm(installed.dir, { recursive: true, force: true }) };
}

const outputDirs: string[] = [];
// Benches write many megabytes of run folders; none of it is wanted afterwards.
process.once('exit', () => outputDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

export async function tempOutputDir(): Promise<string> {
  const dir = path.join(os.tmpdir(), `parallel-llm-bench-${process.pid}-${outputDirs.length}`);
  await mkdir(dir, { recursive: true });
  outputDirs.push(dir);
  return dir;
}

/** The server's environment for a bench: quiet logs unless the bench says otherwise. */
export const serverEnv = (fake: FakeOpenRouter, outputDir: string, extra: Record<string, string> = {}) =>
  sharedServerEnv(fake, outputDir, { PARALLEL_LLM_LOG_LEVEL: 'warn', ...extra });

export interface Session {
  client: Client;
  pid: number | null;
  close(): Promise<void>;
}

export async function connect(binPath: string, env: Record<string, string>, clientName = 'bench'): Promise<Session> {
  const transport = new StdioClientTransport({ command: binPath, env, stderr: 'inherit' });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

export async function processPrompt(
  session: Session,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[2] = {},
): Promise<{ result: CallToolResult; data: StructuredResult }> {
  const result = (await session.client.callTool({ name: 'process_prompt', arguments: args }, undefined, options)) as CallToolResult;
  return { result, data: result.structuredContent as StructuredResult };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: number[]) => percentile(values, 50);
export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export function machine() {
  return { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` };
}

/** Prints the figures and saves them as bench/results/NAME.json. */
export async function report(name: string, figures: Record<string, unknown>): Promise<void> {
  const record = { bench: name, at: new Date().toISOString(), machine: machine(), ...figures };
  const dir = path.join(projectRoot, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
}
