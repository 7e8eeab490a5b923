import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** An open MCP session as a later request needs it: what `initialize` negotiated. */
export interface Session {
  id: string;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  /** The client's `clientInfo` (name, version): {} for a session opened without it. */
  clientInfo: Record<string, unknown>;
  /** How long the client was seen to wait for a call before it gave up (its own timeout), when it has. */
  clientLimitMs?: number;
}

/** Records a session `initialize` opened for a member; returns its id, the Mcp-Session-Id header's value. */
export async function openSession(
  pool: pg.Pool,
  memberId: string,
  {
    protocolVersion,
    clientCapabilities = {},
    clientInfo = {},
  }: { protocolVersion: string; clientCapabilities?: Record<string, unknown>; clientInfo?: Record<string, unknown> },
): Promise<string> {
  const id = randomUUID();
  await pool.query(
    'INSERT INTO plm.mcp_sessions (id, member_id, protocol_version, client_capabilities, client_info) VALUES ($1, $2, $3, $4, $5)',
    [id, memberId, protocolVersion, JSON.stringify(clientCapabilities), JSON.stringify(clientInfo)],
  );
  return id;
}

/** UUID's text form: anything else names no session, and is not sent to the database (where it is an error). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The member's open session of this id; another member's, a closed one and an unknown one alike are undefined. */
export async function findSession(pool: pg.Pool, memberId: string, id: string): Promise<Session | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await pool.query<{
    protocol_version: string;
    client_capabilities: Record<string, unknown>;
    client_info: Record<string, unknown>;
    client_limit_ms: number | null;
  }>(
    `SELECT protocol_version, client_capabilities, client_info, client_limit_ms FROM plm.mcp_sessions
     WHERE id = $1 AND member_id = $2 AND closed_at IS NULL`,
    [id, memberId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const session = { id, protocolVersion: row.protocol_version, clientCapabilities: row.client_capabilities, clientInfo: row.client_info };
  return row.client_limit_ms === null ? session : { ...session, clientLimitMs: row.client_limit_ms };
}

/**
 * Keeps the shortest time the member's client was seen to wait for a call before it gave up, so
 * that whichever process serves the session's next call answers within it.
 */
export async function learnClientLimit(pool: pg.Pool, memberId: string, id: string, limitMs: number): Promise<void> {
  if (!UUID.test(id)) return;
  const ms = Math.max(0, Math.min(2 ** 31 - 1, Math.round(limitMs)));
  await pool.query(
    `UPDATE plm.mcp_sessions SET client_limit_ms = LEAST(COALESCE(client_limit_ms, $3), $3)
     WHERE id = $1 AND member_id = $2 AND closed_at IS NULL`,
    [id, memberId, ms],
  );
}

/** Closes the member's session (an HTTP DELETE); false when it names none of theirs that is open. */
export async function closeSession(pool: pg.Pool, memberId: string, id: string): Promise<boolean> {
  if (!UUID.test(id)) return false;
  const { rowCount } = await pool.query(
    'UPDATE plm.mcp_sessions SET closed_at = now() WHERE id = $1 AND member_id = $2 AND closed_at IS NULL',
    [id, memberId],
  );
  return rowCount === 1;
}
