import { runStorage } from '../../src/store/run-store.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach } from 'vitest';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { StructuredResult } from '../../src/present/output-schema.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { localRuns } from '../../src/run/local.js';
import type { LocalRunService } from '../../src/run/local.js';
import type { Runs } from '../../src/run/runs.js';
import type { StartOutcome } from '../../src/run/service.js';
import { createServer } from '../../src/mcp/server.js';
import { testClient, silentLogger } from './client.js';
import { stopHostsUnder } from './hosts.js';
import { VALID_KEY, type FakeOpenRouter } from './fake-openrouter.js';

/** The server under test, and the runs it uses (executed in the test's process: no run host). */
export interface App {
  server: McpServer;
  runs: Runs;
  service: LocalRunService;
}

export interface Harness {
  client: Client;
  app: App;
  config: Config;
  outputDir: string;
  close(): Promise<void>;
}

const madeHere: string[] = [];

/** A new temporary folder, removed after the test file by test/support/cleanup.ts. */
export async function tempDir(prefix = 'parallel-llm-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  madeHere.push(dir);
  return dir;
}

/** A new temporary folder holding a .env file with this text, as a user's working folder would. */
export async function folderWithDotEnv(text: string): Promise<string> {
  const dir = await tempDir();
  await writeFile(path.join(dir, '.env'), text);
  return dir;
}

/**
 * Removes the test file's temporary folders, after stopping every run host that lives in one:
 * all of them first, since a host in one folder may write in another (its TMPDIR's compile cache).
 */
export async function removeTempDirs(): Promise<void> {
  const dirs = madeHere.splice(0);
  await Promise.all(dirs.map((dir) => stopHostsUnder(dir)));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/** The real server, with a real OpenRouter client pointed at the fake, driven by the SDK's Client in-process. */
export async function startHarness(
  fake: FakeOpenRouter,
  env: Record<string, string> = {},
  options: {
    clientName?: string;
    heartbeatMs?: number;
    idleTimeoutMs?: number;
    outputDir?: string;
    taskPollMs?: number;
    /** What the client says it can do in `initialize` (an MCP Apps host says so in `extensions`). */
    capabilities?: ConstructorParameters<typeof Client>[1];
  } = {},
): Promise<Harness> {
  const outputDir = options.outputDir ?? (await tempDir());
  const config = loadConfig({
    OPENROUTER_API_KEY: VALID_KEY,
    OPENROUTER_BASE_URL: fake.url,
    PARALLEL_LLM_OUTPUT_DIR: outputDir,
    PARALLEL_LLM_MODELS: 'a/one,b/two,c/three',
    PARALLEL_LLM_SYNTHESIZER_MODEL: 's/synth',
    PARALLEL_LLM_TIMEOUT_MS: '5000',
    PARALLEL_LLM_BUDGET_MS: '20000',
    ...env,
  });
  const upstream = testClient(fake.url, {
    timeoutMs: config.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? 2000,
    maxConnections: config.maxConcurrency,
  });
  const { runs, service } = localRuns(config, upstream, silentLogger);
  const app = {
    server: createServer({
      config,
      service,
      store: async () => runStorage(config),
      logger: silentLogger,
      version: '0.0.0-test',
      heartbeatMs: options.heartbeatMs,
      taskPollMs: options.taskPollMs ?? 50,
    }),
    runs,
    service,
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: options.clientName ?? 'test-client', version: '1.0.0' }, options.capabilities);
  await app.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    app,
    config,
    outputDir,
    close: async () => {
      await app.runs.interruptAll();
      await client.close();
      await upstream.close();
    },
  };
}

/** For a test file: starts harnesses as `startHarness` does, and closes each one after its test. */
export function harnessesClosedAfterEach(): typeof startHarness {
  const open: Harness[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((harness) => harness.close()));
  });
  return async (...args) => {
    const harness = await startHarness(...args);
    open.push(harness);
    return harness;
  };
}

/** A tool call through the harness's client, with its text and structured content. */
export async function callTool(
  harness: Harness,
  name: string,
  args: Record<string, unknown>,
  options: Parameters<Client['callTool']>[2] = {},
) {
  const result = (await harness.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  const first = result.content[0];
  return { result, text: first?.type === 'text' ? first.text : '', data: result.structuredContent as StructuredResult | undefined };
}

/** A run service's start that must have started a run: a refusal fails the test. */
export function mustStart(outcome: StartOutcome): Exclude<StartOutcome, { refused: unknown }> {
  if ('refused' in outcome) throw new Error(`refused: ${JSON.stringify(outcome.refused)}`);
  return outcome;
}
