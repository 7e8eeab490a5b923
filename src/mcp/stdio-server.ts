import { setTimeout as sleep } from 'node:timers/promises';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import { ConfigError, MAX_TIMER_MS, type Config } from '../config/config.js';
import { RunHostClient } from '../host/client.js';
import { createLogger } from '../log/logger.js';
import { LineTransport } from './line-transport.js';
import { createSetupErrorServer } from './setup-error-server.js';
import { createServer, type ServerDeps } from './server.js';
import { exitOnDisconnect, type ClientGone, type Stops } from './shutdown.js';
import { packageVersion } from '../version.js';

/**
 * The stdio MCP server: stdout carries JSON-RPC and nothing else. A setup problem does not end
 * it: a server that says what is wrong in every tool call starts instead.
 */
export async function startServer(readConfig: () => Config): Promise<void> {
  let config: Config;
  let logger: Logger;
  try {
    config = readConfig();
    logger = createLogger({ level: config.logLevel, file: config.logFile });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return serveSetupError(error.message);
  }
  await serve(config, logger);
}

async function serveSetupError(problem: string): Promise<void> {
  process.stderr.write(`parallel-llm-mcp: ${problem}\n`);
  const logger = createLogger({ level: 'info' });
  const server = createSetupErrorServer(problem, packageVersion());
  const close = () => server.close();
  await connectStdio(server, { clientGone: close, halted: close }, logger);
}

/** The server whose runs execute in the run host, reached (or started) at the first call that needs it. */
async function serve(config: Config, logger: Logger): Promise<void> {
  const version = packageVersion();
  const service = new RunHostClient(config, logger, version);
  let store: ReturnType<ServerDeps['store']> | undefined;
  const server = createServer({
    config,
    service,
    store: () => (store ??= import('../store/run-store.js').then(({ runStorage }) => runStorage(config))),
    logger,
    version,
  });
  await connectStdio(
    server,
    {
      // Runs outlive their calls and this process: the run host's go on without it. Runs this
      // process executes itself (no host) still finish first; each upstream call has its limit,
      // and this is a backstop.
      clientGone: async () => {
        await server.close();
        await Promise.race([service.finished(), sleep(Math.min(3 * config.timeoutMs + 60_000, MAX_TIMER_MS), undefined, { ref: false })]);
        await service.close();
      },
      // The process must go now: runs it executes itself are journaled as interrupted, to be resumed.
      halted: async () => {
        await server.close();
        await Promise.race([service.close(), sleep(1000, undefined, { ref: false })]);
      },
    },
    logger,
  );
  logger.info(
    { models: config.models, synthesizers: config.synthesizerModels, outputDir: config.saveOutputs ? config.outputDir : null },
    'parallel-llm-server ready',
  );
}

/** Serves `server` on stdio until the client goes away or a signal comes; `stops` says how to stop. */
async function connectStdio(server: McpServer, stops: Stops, logger: Logger): Promise<void> {
  await server.connect(stdioTransport(exitOnDisconnect(stops, logger), logger));
}

/**
 * stdio as the MCP transport. A message it cannot serve (a line over 16 MiB, one that is not
 * JSON-RPC) is answered with an error where it can be and logged, and every other call goes on;
 * the transport closes when stdout breaks: the client is gone.
 */
function stdioTransport(clientGone: ClientGone, logger: Logger): LineTransport {
  const transport = new LineTransport();
  let lastError: Error | undefined;
  transport.onerror = (error) => {
    lastError = error;
    // The message may quote the client's line: a short excerpt is enough.
    logger.warn({ error: error.message.slice(0, 300) }, 'the stdio transport reported a problem');
  };
  transport.onclose = () => clientGone(`stdout broke${lastError ? ` (${lastError.message.slice(0, 300)})` : ''}`);
  return transport;
}
