import { setTimeout as sleep } from 'node:timers/promises';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HELP } from './cli/help.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';
import { OpenRouterClient } from './openrouter/client.js';
import { createServer } from './server.js';
import { exitOnDisconnect } from './shutdown.js';
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
      return (await import('./cli/ask.js')).runAsk(rest, readConfig);
    case 'doctor':
      return (await import('./cli/doctor.js')).doctorCommand(rest, readConfig);
    case undefined:
      await serve(readConfig());
      return undefined;
    default:
      process.stderr.write(`parallel-llm-mcp: unknown command "${command}"; see parallel-llm-mcp --help\n`);
      return 2;
  }
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`parallel-llm-mcp: ${error.message}\n`);
    process.exit(1);
  }
}

/** The stdio MCP server: stdout carries JSON-RPC and nothing else. */
async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, file: config.logFile });
  const client = OpenRouterClient.fromConfig(config, logger);
  const { server, cleanup, idle } = createServer({ config, client, logger, version: packageVersion() });
  exitOnDisconnect(async () => {
    // Stop every upstream request, then give the runs a moment to save what they have.
    cleanup();
    await Promise.race([idle(), sleep(1000)]);
    await server.close();
    await client.close();
  }, logger);
  await server.connect(new StdioServerTransport());
  logger.info({ models: config.models, synthesizers: config.synthesizerModels, outputDir: config.saveOutputs ? config.outputDir : null }, 'parallel-llm-server ready');
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`parallel-llm-mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
