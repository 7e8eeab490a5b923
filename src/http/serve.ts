import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer, commandError, readCommandLine } from '../cli/command-line.js';
import { withTeamDatabase } from '../team/commands.js';
import { teamRoutes } from './app.js';

export const SERVE_HELP = `Usage: parallel-llm-mcp serve --http [--host H] [--port P]

Team mode's server (docs/team.md): MCP over Streamable HTTP at /mcp for the members of the
Postgres database PARALLEL_LLM_DATABASE_URL names, and GET /healthz (200 while the database
answers, 503 otherwise). Every request to /mcp needs Authorization: Bearer <token> (see
parallel-llm-mcp users). It binds 127.0.0.1 unless told --host; put a TLS proxy in front of it
for anyone else. Not finished: it cannot run prompts yet, and answers an authenticated call 501.

Options:
  --http       serve over HTTP (required: the stdio server is parallel-llm-mcp alone)
  --host H     the address to listen on (default 127.0.0.1)
  --port P     the port (default 8787; 0 picks a free one, printed on stderr)
  -h, --help   this text
`;

/** How long a stop may take for open connections to finish before they are closed. */
const CLOSE_MS = 2_000;

/** `parallel-llm-mcp serve --http`: runs until SIGINT or SIGTERM. */
export async function serveCommand(args: string[]): Promise<number> {
  const line = readCommandLine('serve', args, { words: false, options: { http: 'boolean', host: 'string', port: 'string' } });
  if (line.kind !== 'run') return answer(line, SERVE_HELP);
  if (!line.values.http)
    return answer(commandError('serve', 'needs --http (the stdio MCP server is parallel-llm-mcp with no command)'), SERVE_HELP);
  const port = Number(line.values.port ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return answer(commandError('serve', `--port takes 0 to 65535, not "${line.values.port}"`), SERVE_HELP);
  const host = (line.values.host as string | undefined) ?? '127.0.0.1';
  return withTeamDatabase(
    'serve',
    async (team, pool) => {
      const route = teamRoutes(team, pool);
      const server = createServer((req, res) => {
        route(req, res).catch((error: unknown) => {
          process.stderr.write(`parallel-llm-mcp serve: ${(error as Error).message}\n`);
          if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json', Connection: 'close' });
          res.end();
        });
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
      const { address, port: bound } = server.address() as AddressInfo;
      const shown = address.includes(':') ? `[${address}]` : address;
      process.stderr.write(`parallel-llm-mcp serve: listening on http://${shown}:${bound}/mcp\n`);
      const signal = await new Promise<string>((resolve) => {
        for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => resolve(name));
      });
      process.stderr.write(`parallel-llm-mcp serve: ${signal}, stopping\n`);
      server.close();
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), CLOSE_MS).unref();
      return 0;
    },
    { connections: 10 },
  );
}
