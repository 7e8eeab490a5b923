import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { answer, commandError, readCommandLine } from '../cli/command-line.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createLogger } from '../log/logger.js';
import { createServer } from '../mcp/server.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { withTeamDatabase } from '../team/commands.js';
import type { Team } from '../team/load.js';
import { memberTaskRecords } from '../team/task-records.js';
import { packageVersion } from '../version.js';
import { teamRoutes } from './app.js';
import { mcpEndpoint } from './mcp-endpoint.js';
import { teamRuns } from './member-runs.js';
import { Stops } from './stops.js';
import { driver, type DriveInput, type RunEnd, type TeamEngine } from './drive.js';

export const SERVE_HELP = `Usage: parallel-llm-mcp serve --http [--host H] [--port P] [--drain-seconds S]

Team mode's server (docs/team.md): MCP over Streamable HTTP at /mcp for the members of the
Postgres database PARALLEL_LLM_DATABASE_URL names, with the OpenRouter key of
OPENROUTER_API_KEY (members never see it), and GET /healthz (200 while the database answers,
503 otherwise). Every request to /mcp needs Authorization: Bearer <token> (see
parallel-llm-mcp users); each member's calls are held against their budget. Runs are kept in
the database, so any process answers get_run, and a run whose process dies is taken over by
another, asking only the models with no saved answer. It binds 127.0.0.1 unless told --host;
put a TLS proxy in front of it for anyone else. SIGTERM or SIGINT drains: new calls get 503,
runs going on finish (for up to S seconds, then they are handed to the other processes); a
second signal stops at once.

Options:
  --http             serve over HTTP (required: the stdio server is parallel-llm-mcp alone)
  --host H           the address to listen on (default 127.0.0.1)
  --port P           the port (default 8787; 0 picks a free one, printed on stderr)
  --drain-seconds S  how long a stop waits for runs going on (default 120)
  --connections N    this process's connections to the database, kept open (default 6, at
                     least 3: two of them listen for notifications)
  -h, --help         this text
`;

/** How long a stop may take for open connections to finish before they are closed. */
const CLOSE_MS = 2_000;

/** `parallel-llm-mcp serve --http`: runs until SIGINT or SIGTERM. */
export async function serveCommand(args: string[]): Promise<number> {
  const line = readCommandLine('serve', args, {
    words: false,
    options: { http: 'boolean', host: 'string', port: 'string', 'drain-seconds': 'string', connections: 'string' },
  });
  if (line.kind !== 'run') return answer(line, SERVE_HELP);
  if (!line.values.http)
    return answer(commandError('serve', 'needs --http (the stdio MCP server is parallel-llm-mcp with no command)'), SERVE_HELP);
  const port = Number(line.values.port ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return answer(commandError('serve', `--port takes 0 to 65535, not "${line.values.port}"`), SERVE_HELP);
  const drainSeconds = Number(line.values['drain-seconds'] ?? 120);
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0 || drainSeconds > 86_400)
    return answer(commandError('serve', `--drain-seconds takes 0 to 86400, not "${line.values['drain-seconds']}"`), SERVE_HELP);
  const connections = Number(line.values.connections ?? 6);
  if (!Number.isInteger(connections) || connections < 3 || connections > 1000)
    return answer(commandError('serve', `--connections takes 3 to 1000, not "${line.values.connections}"`), SERVE_HELP);
  const host = (line.values.host as string | undefined) ?? '127.0.0.1';
  return withTeamDatabase(
    'serve',
    async (team, pool) => {
      let config: Config;
      try {
        config = loadConfig();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        process.stderr.write(`parallel-llm-mcp serve: ${error.message}\n`);
        return 1;
      }
      return serve(team, pool, config, { host, port, drainMs: drainSeconds * 1000 });
    },
    // Each connection is a database process to start and warm up, and more than the database
    // has cores only queue there instead of here: a few, kept open. Two of them listen for
    // notifications (ours and the engine's); a call holds one of the others only for a statement.
    { connections, keepIdle: true },
  );
}

async function serve(team: Team, pool: pg.Pool, config: Config, options: { host: string; port: number; drainMs: number }): Promise<number> {
  const version = packageVersion();
  const logger = createLogger({ level: config.logLevel, file: config.logFile });
  const stops = new Stops(pool, logger);
  const runs = teamRuns(config, OpenRouterClient.fromConfig(config, logger), logger, team, pool, stops);
  const serveMcp = mcpEndpoint({
    team,
    pool,
    stops,
    logger,
    serverFor: (member, session) => {
      const service = runs.serviceFor(member);
      return createServer({
        config,
        service,
        store: async () => service.store,
        tasks: memberTaskRecords(team, pool, member),
        session,
        logger: logger.child({ member: member.name }),
        version,
      });
    },
  });
  const routes = teamRoutes(team, pool, serveMcp);
  const engine: TeamEngine = await team.startEngine<DriveInput, RunEnd>({
    pool,
    databaseUrl: team.databaseUrl(),
    logger: logger.child({ part: 'engine' }),
    version,
    run: driver((member) => runs.serviceFor(member), team.isDown),
    onFenced: (error) => logger.warn({ err: error }, 'lost hold of the team database: runs going on here continue elsewhere'),
  });
  runs.useEngine(engine);
  await stops.listen();
  const server = createHttpServer((req, res) => {
    routes.route(req, res).catch((error: unknown) => {
      logger.error({ err: error, url: req.url }, 'a request failed unexpectedly');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve));
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  process.stderr.write(`parallel-llm-mcp serve: listening on http://${shown}:${bound}/mcp\n`);
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const signalled = () =>
    new Promise<string>((resolve) => {
      for (const name of signals) process.once(name, () => resolve(name));
    });
  const first = await signalled();
  routes.drain();
  runs.drain();
  const running = runs.running();
  process.stderr.write(`parallel-llm-mcp serve: ${first}, taking no new call; waiting for ${running} run(s) going on\n`);
  await runs.started();
  // The engine waits for its runs (each to its end and its settled cost), then hands over what is left to the other processes.
  const outcome = await Promise.race([
    engine.drain(options.drainMs).then(({ handedOver }) => (handedOver === 0 ? runs.finished().then(() => 'finished') : 'the drain limit')),
    signalled(),
  ]);
  if (outcome !== 'finished') {
    process.stderr.write(`parallel-llm-mcp serve: ${outcome}: stopping runs going on, to be resumed\n`);
    await engine.stop();
  }
  stops.close();
  await runs.close();
  server.close();
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), CLOSE_MS).unref();
  process.stderr.write('parallel-llm-mcp serve: stopped\n');
  return 0;
}
