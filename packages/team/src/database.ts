import pg from 'pg';
import { TeamError } from './errors.js';

/** Every wait on the database is bounded: connecting, a statement, a lock, the reply. */
export const LIMITS = {
  connectMs: 3_000,
  statementMs: 10_000,
  lockMs: 10_000,
  /** A little above the statement limit, so the server's own error arrives first when it can. */
  replyMs: 12_000,
} as const;

/** The URL with its password replaced, for messages and logs. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

/** The database URL from the environment, or a TeamError saying what to set. */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.PARALLEL_LLM_DATABASE_URL?.trim();
  if (!url)
    throw new TeamError(
      'no_database',
      'PARALLEL_LLM_DATABASE_URL is not set: team mode keeps its members, budgets and runs in Postgres; set it to postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new TeamError('no_database', `PARALLEL_LLM_DATABASE_URL must be a postgres:// URL, not ${shownUrl(url)}`);
  return url;
}

/**
 * A pool on `url` whose every wait has a limit (LIMITS). With `keepIdle` (a server) a connection
 * once opened stays open: each new one costs the database a process to start and its caches to
 * fill, tens of milliseconds of its CPU, which a burst of calls after a quiet spell would pay again.
 */
export function openPool(
  url: string,
  { max = 10, name = 'parallel-llm-mcp', keepIdle = false }: { max?: number; name?: string; keepIdle?: boolean } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // 0: never closed for being idle; otherwise pg's default of 10 s.
    idleTimeoutMillis: keepIdle ? 0 : 10_000,
    connectionTimeoutMillis: LIMITS.connectMs,
    statement_timeout: LIMITS.statementMs,
    lock_timeout: LIMITS.lockMs,
    query_timeout: LIMITS.replyMs,
    application_name: name,
    keepAlive: true,
  });
  // An idle connection the server drops (a restart) is reported here; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** The advisory lock of executor (or run-code instance) `$1`: held for as long as it lives, watched by its peers. */
export const EXECUTOR_LOCK = "hashtextextended('plm-exec:' || $1, 0)";

/**
 * The server drops a connection whose client stopped answering within about 11 s (5 s idle,
 * then 3 probes 2 s apart), or whose data goes unacknowledged for 10 s: a lost machine's
 * lock is let go as fast as that. For a connection that holds such a lock.
 */
export const KEEPALIVES = ['tcp_keepalives_idle=5', 'tcp_keepalives_interval=2', 'tcp_keepalives_count=3', 'tcp_user_timeout=10000'];

/** SQLSTATEs of a wait that reached its limit: a statement cancelled by statement_timeout, a lock not had within lock_timeout. */
export const WAIT_ENDED = new Set(['57014', '55P03']);

/** Postgres error codes that mean "the database is not there", as opposed to a bad statement. */
const DOWN_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** Whether `error` means the database could not be reached or went away, rather than refused a statement. */
export function isDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (DOWN_CODES.has(code) || NETWORK_CODES.has(code))) return true;
  // pg reports its own connect and reply limits, and a connection that ended, by message only.
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout/i.test(error.message);
}

/** Runs `work`; a database that cannot be reached becomes a TeamError of kind database_down naming the URL. */
export async function reaching<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TeamError) throw error;
    const { code } = error as { code?: unknown };
    const message = (error as Error).message || 'no reply';
    // Class 28 is a refused login, 3D a database that does not exist: the URL needs fixing.
    if (typeof code === 'string' && /^(28|3D)/.test(code))
      throw new TeamError('database_refused', `the database at ${shownUrl(url)} refused the connection: ${message}`, { cause: error });
    if (!isDown(error)) throw error;
    throw new TeamError('database_down', `the database at ${shownUrl(url)} does not answer (${message}); is Postgres running there?`, {
      cause: error,
    });
  }
}

/**
 * Runs `work` on one connection from `connect` (a pool's), held throughout and always handed
 * back; `drop` closes it afterwards instead, as does an error event while it is held.
 */
export async function onOwnConnection<T>(
  connect: () => Promise<pg.PoolClient>,
  work: (client: pg.PoolClient, drop: () => void) => Promise<T>,
): Promise<T> {
  const client = await connect();
  let broken = false;
  const drop = () => {
    broken = true;
  };
  // A connection that breaks while held tells its statement, which fails, and emits an error, which unheard would end the process.
  client.on('error', drop);
  try {
    return await work(client, drop);
  } finally {
    client.off('error', drop).release(broken);
  }
}

/**
 * Takes the session advisory lock `key` (an SQL expression of `values`) on `client`. A wait that
 * reaches its limit fails with the SQLSTATE `code`; it is asked again while `again(code)` holds,
 * so each wait stays bounded however long the lock is held elsewhere.
 */
export async function advisoryLock(client: pg.ClientBase, key: string, values: unknown[], again: (code: string) => boolean): Promise<void> {
  for (;;) {
    try {
      await client.query(`SELECT pg_advisory_lock(${key})`, values);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !again(code)) throw error;
    }
  }
}

/** Closes `client`, giving up after `limitMs` on a server that does not answer (the socket is destroyed then). */
export async function closeClient(client: pg.Client, limitMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, limitMs);
  });
  await Promise.race([client.end().catch(() => undefined), late]);
  clearTimeout(timer);
}
