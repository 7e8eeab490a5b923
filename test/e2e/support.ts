import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { inject } from 'vitest';
import type { StructuredResult } from '../../src/present/output-schema.js';
import { agreeingSynthesizer } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { serverEnv } from '../support/server-env.js';

export const binPath = () => inject('binPath');

/** The fake upstream of the e2e suite: the three candidates and the synthesizer of userEnv. */
export async function startE2eFake(): Promise<FakeOpenRouter> {
  const fake = await startFakeOpenRouter({ keepAliveCommentMs: 100 });
  fake.on('e2e/one', { answer: 'one says 4', delayMs: 30 });
  fake.on('e2e/two', { answer: 'two says four', delayMs: 60 });
  fake.on('e2e/three', { answer: 'three says 2+2=4', delayMs: 90 });
  fake.on('e2e/synth', agreeingSynthesizer('The answer is 4.'));
  return fake;
}

/** The server's environment for the e2e suite: three candidates and a synthesizer on the fake. */
export function userEnv(fake: FakeOpenRouter, outputDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return serverEnv(fake, outputDir, {
    // npx, when a test starts the server through it, installs into the suite's temporary cache.
    npm_config_cache: inject('npmCache'),
    PARALLEL_LLM_MODELS: 'e2e/one,e2e/two,e2e/three',
    PARALLEL_LLM_SYNTHESIZER_MODEL: 'e2e/synth',
    PARALLEL_LLM_BUDGET_MS: '20000',
    ...extra,
  });
}

export interface Session {
  client: Client;
  /** The server process's pid, for signals. */
  pid: number;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns the installed bin the way an MCP client does (in `cwd`, when given), and connects the SDK's Client to it. */
export async function connect(env: Record<string, string>, command = binPath(), args: string[] = [], cwd?: string): Promise<Session> {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe', cwd });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'e2e-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid!, stderr: () => stderr, close: () => client.close() };
}

export async function callTool(
  session: Session,
  name: string,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[2] = {},
) {
  const result = (await session.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  return { result, text: (result.content[0] as { text: string }).text, data: result.structuredContent as StructuredResult | undefined };
}

export const processPrompt = (session: Session, args: Record<string, unknown>, options: Parameters<Client['callTool']>[2] = {}) =>
  callTool(session, 'process_prompt', args, options);

/** The bin as a bare child process, for what the SDK transport hides: raw stdout, signals, exit codes. */
export function spawnBin(args: string[], env: Record<string, string>, cwd?: string): ChildProcessWithoutNullStreams {
  return spawn(binPath(), args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs the installed bin to its end (in `cwd`, when given); `input` is piped to stdin, which is closed either way. */
export async function runBin(args: string[], env: Record<string, string>, input = '', cwd?: string): Promise<Finished> {
  const child = spawnBin(args, env, cwd);
  const done = finished(child);
  child.stdin.end(input);
  return done;
}

/** The environment without these variables: the key a new user has not set yet, or one left to .env. */
export function without(env: Record<string, string>, ...names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Collects a child's output and resolves when it exits. */
export function finished(child: ChildProcessWithoutNullStreams, since = Date.now()): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - since }));
  });
}

export { waitFor } from '../support/wait.js';
