import { setTimeout as sleep } from 'node:timers/promises';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from 'pino';
import { HELP } from './cli/help.js';
import { ConfigError, MAX_TIMER_MS, loadConfig, type Config } from './config.js';
import { createLogger } from './log/logger.js';
import { faceRunService } from './host/lazy.js';
import { createServer } from './server.js';
import { exitOnDisconnect, type Stop } from './shutdown.js';
import { packageVersion } from './version.js';

/** The entry point: reads the config, sets up logging, wires the parts, owns the process. */
async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  switch (command) {
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(HELP);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    // The terminal commands are loaded only when asked for, to keep the server's start quick.
    case 'ask':
      return (await import('./cli/ask.js')).runAsk(rest, loadConfig);
    case 'doctor':
      return (await import('./cli/doctor.js')).doctorCommand(rest, loadConfig);
    case 'runs':
      return (await import('./cli/runs.js')).runsCommand(rest, loadConfig);
    case 'cancel':
      return (await import('./cli/cancel.js')).cancelCommand(rest, loadConfig);
    case 'host':
      return (await import('./host/main.js')).hostCommand(rest, loadConfig);
    case undefined:
      await serve(loadConfig());
      return undefined;
    default:
      process.stderr.write(`parallel-llm-mcp: unknown command "${command}"; see parallel-llm-mcp --help\n`);
      return 2;
  }
}

/** The stdio MCP server: stdout carries JSON-RPC and nothing else. Its runs execute in the run host. */
async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, file: config.logFile });
  const version = packageVersion();
  const service = faceRunService(config, logger, version);
  const server = createServer({ config, service, logger, version });
  const stop = exitOnDisconnect(
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
  await server.connect(stdioTransport(stop, logger));
  logger.info({ models: config.models, synthesizers: config.synthesizerModels, outputDir: config.saveOutputs ? config.outputDir : null }, 'parallel-llm-server ready');
}

/**
 * The SDK's stdio transport. After a line longer than it accepts (10 MiB) it closes itself
 * and stops reading, which used to end the process silently with code 0; now the process
 * ends the recorded way, saying why, with code 1.
 */
function stdioTransport(stop: Stop, logger: Logger): StdioServerTransport {
  const transport = new StdioServerTransport();
  let lastError: Error | undefined;
  transport.onerror = (error) => {
    lastError = error;
    // The message may quote the client's line: a short excerpt is enough.
    logger.warn({ error: error.message.slice(0, 300) }, 'unreadable message on stdin');
  };
  transport.onclose = () => stop(`the MCP stdio transport closed${lastError ? ` after: ${lastError.message.slice(0, 300)}` : ''}`, 1);
  return transport;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    // A configuration problem (a bad variable, a log file that cannot be opened) is one line, never a stack trace.
    const shown = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`parallel-llm-mcp: ${shown}\n`);
    process.exit(1);
  },
);
