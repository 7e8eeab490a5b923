import pg from 'pg';
import { KEEPALIVES, LIMITS } from '../database.js';

/**
 * A connection of the engine's own, outside the pool: each liveness lock and each watch needs
 * one for as long as it lasts. `waitMs` bounds every statement on it (a lock wait included),
 * on the server and, a little later, on this side, for a server that no longer answers.
 */
export function dedicatedClient(url: string, applicationName: string, waitMs: number): pg.Client {
  const settings = [...KEEPALIVES, `statement_timeout=${waitMs}`, `lock_timeout=${waitMs}`];
  const client = new pg.Client({
    connectionString: url,
    application_name: applicationName,
    options: settings.map((setting) => `-c ${setting}`).join(' '),
    connectionTimeoutMillis: LIMITS.connectMs,
    query_timeout: waitMs + 2_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
  });
  // Errors on an idle connection are reported by its owner through 'end'; without a listener they would crash the process.
  client.on('error', () => undefined);
  return client;
}
