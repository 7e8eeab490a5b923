import type { Logger } from 'pino';
import type pg from 'pg';

/** The Postgres channel every team process listens on for stops. */
const CHANNEL = 'plm_stops';
/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 5_000;
/** NOTIFY takes at most 8000 bytes: a stop's reason is cut well below. */
const REASON_CHARS = 500;

/** A run of a member's to stop, or a client's `notifications/cancelled` for a call of a session. */
export type StopNotice =
  | { kind: 'run'; member: string; run: string; reason: string }
  | { kind: 'call'; session: string; requestId: string | number; reason: string };

/**
 * Stops that cross processes: `tasks/cancel` or a client's stop of a call may reach any
 * process, while the run executes in one and the call waits in one. A stop goes out as a
 * Postgres NOTIFY, which every process hears on a connection it keeps listening, and the
 * process that has the run or the call acts on it. A lost connection listens again once the
 * database answers.
 */
export class Stops {
  private readonly handlers = new Set<(notice: StopNotice) => void>();
  private client: pg.PoolClient | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** `handler` hears every stop, this process's own included. */
  subscribe(handler: (notice: StopNotice) => void): void {
    this.handlers.add(handler);
  }

  /** Resolves once listening, or once the first try has failed (it tries again meanwhile). */
  async listen(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.pool.connect();
      this.client = client;
      client.on('notification', (message) => this.heard(message.payload));
      client.on('error', (error) => this.lost(client, error));
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      if (this.client) this.lost(this.client, error as Error);
      else this.again();
    }
  }

  /** Tells every process. */
  async send(notice: StopNotice): Promise<void> {
    const payload = JSON.stringify({ ...notice, reason: notice.reason.slice(0, REASON_CHARS) });
    await this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.client?.release(true);
    this.client = undefined;
  }

  private heard(payload: string | undefined): void {
    const notice = parseNotice(payload);
    if (!notice) return void this.logger.warn({ payload: payload?.slice(0, 200) }, 'a stop notice that is not one was ignored');
    for (const handler of this.handlers) handler(notice);
  }

  private lost(client: pg.PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    this.logger.warn({ err: error }, 'the connection that hears stops was lost; listening again shortly');
    this.again();
  }

  private again(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => void this.listen(), RECONNECT_MS);
    this.retry.unref();
  }
}

function parseNotice(payload: string | undefined): StopNotice | undefined {
  let notice: Record<string, unknown>;
  try {
    notice = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const text = (key: string) => typeof notice[key] === 'string';
  if (notice.kind === 'run' && text('member') && text('run') && text('reason')) return notice as StopNotice;
  const id = typeof notice.requestId === 'string' || typeof notice.requestId === 'number';
  if (notice.kind === 'call' && text('session') && id && text('reason')) return notice as StopNotice;
  return undefined;
}
