import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { Team } from '../team/load.js';
import { bearerAuth } from './auth.js';
import { STOPPING, rpcError, send } from './replies.js';
import type { Member } from '../team/run-storage.js';

/** /healthz's limit on the database's answer. */
const HEALTH_MS = 1_000;

export interface TeamRoutes {
  route(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** From now on /mcp answers 503: the process is stopping, and takes no new call. */
  drain(): void;
}

/**
 * The team server's routes: GET /healthz, and /mcp behind bearer auth, which is decided
 * before the request's body is read. A draining process answers /mcp 503 at once.
 */
export function teamRoutes(
  team: Team,
  pool: pg.Pool,
  serveMcp: (req: IncomingMessage, res: ServerResponse, member: Member) => Promise<void>,
): TeamRoutes {
  const authenticate = bearerAuth(team, pool);
  let draining = false;
  return {
    drain() {
      draining = true;
    },
    async route(req, res) {
      const { pathname } = new URL(req.url ?? '/', 'http://localhost');
      if (pathname === '/healthz') {
        if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'GET /healthz' }, { Allow: 'GET, HEAD' });
        if (draining) return send(res, 503, { status: 'stopping' });
        const up = await answersWithin(pool, HEALTH_MS);
        return send(res, up ? 200 : 503, { status: up ? 'ok' : 'the database does not answer' });
      }
      if (pathname !== '/mcp') return send(res, 404, { error: 'not found: MCP is served at /mcp' });
      // Connection: close, so a body nobody will read is not waited for on a kept-alive connection.
      if (draining)
        return send(res, 503, rpcError(STOPPING), {
          'Retry-After': '5',
          Connection: 'close',
        });
      const auth = await authenticate(req);
      if (!auth.ok) return send(res, auth.status, rpcError(auth.message), { ...auth.headers, Connection: 'close' });
      return serveMcp(req, res, auth.member);
    },
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
