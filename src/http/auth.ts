import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import type { Team } from '../team/load.js';

/** A known token is trusted this long before it is looked up again: a revocation takes effect within it. */
const TRUSTED_MS = 5_000;

const REALM = 'Bearer realm="parallel-llm-mcp"';

/** Who a request is from, or the answer it gets instead (before its body is read). */
export type Authenticated =
  { ok: true; member: { id: string; name: string } } | { ok: false; status: 401 | 503; headers: Record<string, string>; message: string };

/**
 * Bearer tokens checked against the members table. Only known tokens are remembered (for
 * TRUSTED_MS), keyed by the token's hash; an unknown one is looked up every time, so a member
 * just added is let in at once. While the database does not answer, a token not remembered gets
 * 503 with Retry-After, never 401: it may well be valid.
 */
export function bearerAuth(team: Team, pool: pg.Pool, now: () => number = Date.now) {
  const trusted = new Map<string, { member: { id: string; name: string }; until: number }>();
  return async function authenticate(req: IncomingMessage): Promise<Authenticated> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) return refused(REALM, 'this server needs Authorization: Bearer <token>; ask its administrator for a token');
    const token = match[1]!;
    const key = team.tokenHash(token).toString('base64');
    const known = trusted.get(key);
    if (known && known.until > now()) return { ok: true, member: known.member };
    let member: { id: string; name: string } | undefined;
    try {
      member = await team.memberByToken(pool, token);
    } catch (error) {
      if (!team.isDown(error)) throw error;
      return {
        ok: false,
        status: 503,
        headers: { 'Retry-After': '5' },
        message: 'the database does not answer, so the token cannot be checked; try again shortly',
      };
    }
    if (!member) {
      trusted.delete(key);
      return refused(`${REALM}, error="invalid_token", error_description="Unknown or revoked token"`, 'unknown or revoked token');
    }
    trusted.set(key, { member, until: now() + TRUSTED_MS });
    return { ok: true, member };
  };
}

const refused = (challenge: string, message: string): Authenticated => ({
  ok: false,
  status: 401,
  headers: { 'WWW-Authenticate': challenge },
  message,
});
