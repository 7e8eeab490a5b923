import { mainHelp, terminalGreeting } from './cli/help.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { loadDotEnv } from './config/dot-env.js';
import { packageVersion } from './version.js';

/** The entry point: each command (the MCP server when none is given) is loaded only when asked for. */
async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  switch (command) {
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(mainHelp());
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion()}\n`);
      return 0;
    case 'ask':
      return (await import('./cli/ask.js')).runAsk(rest, readConfig);
    case 'doctor':
      return (await import('./cli/doctor.js')).doctorCommand(rest, readConfig);
    case 'runs':
      return (await import('./cli/runs.js')).runsCommand(rest, readConfig);
    case 'cancel':
      return (await import('./cli/cancel.js')).cancelCommand(rest, readConfig);
    case 'view':
      return (await import('./cli/view.js')).viewCommand(rest, readConfig);
    case 'users':
      return (await import('./cli/users.js')).usersCommand(rest);
    case 'usage':
      return (await import('./cli/usage.js')).usageCommand(rest);
    case 'serve':
      return (await import('./http/serve.js')).serveCommand(rest);
    case 'host':
      return (await import('./host/main.js')).hostCommand(rest, readConfig);
    // The MCP server: its own module, so that the run host never loads the MCP SDK.
    case undefined:
      // Someone started it by hand: nothing in a terminal will speak JSON-RPC to it.
      if (process.stdin.isTTY) process.stderr.write(terminalGreeting(packageVersion()));
      await (await import('./mcp/stdio-server.js')).startServer(readConfig);
      return undefined;
    default:
      process.stderr.write(`parallel-llm-mcp: unknown command "${command}"; see parallel-llm-mcp --help\n`);
      return 2;
  }
}

/** The environment's configuration, completed by a .env file in the working folder. */
function readConfig(): Config {
  loadDotEnv(process.cwd());
  return loadConfig();
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
