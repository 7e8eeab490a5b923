import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { Team } from '../team/load.js';
import { bearerAuth } from './auth.js';

/** /healthz's limit on the database's answer. */
const HEALTH_MS = 1_000;

/**
 * The team server's routes, as far as they go without the run engine: GET /healthz, and /mcp's
 * bearer auth, answered before the request's body is read. An authenticated call is answered
 * 501 until team mode can run prompts (docs/team.md).
 */
export function teamRoutes(team: Team, pool: pg.Pool) {
  const authenticate = bearerAuth(team, pool);
  return async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'GET /healthz' }, { Allow: 'GET, HEAD' });
      const up = await answersWithin(pool, HEALTH_MS);
      return send(res, up ? 200 : 503, { status: up ? 'ok' : 'the database does not answer' });
    }
    if (pathname !== '/mcp') return send(res, 404, { error: 'not found: MCP is served at /mcp' });
    const auth = await authenticate(req);
    // Connection: close, so a body nobody will read is not waited for on a kept-alive connection.
    if (!auth.ok) return send(res, auth.status, rpcError(auth.message), { ...auth.headers, Connection: 'close' });
    return send(res, 501, rpcError('team mode cannot run prompts yet: see docs/team.md'), { Connection: 'close' });
  };
}

/** Whether the database answers SELECT 1 within `ms`. */
async function answersWithin(pool: pg.Pool, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const asked = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A JSON-RPC error with no id, as the SDK's transport sends for a request it refuses. */
const rpcError = (message: string) => ({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}
