import type { Logger } from 'pino';
import type pg from 'pg';

/** The Postgres channel every team process listens on for stops of the runs it executes. */
const CHANNEL = 'plm_run_cancel';
/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 5_000;

export interface CancelNotice {
  member: string;
  run: string;
  reason: string;
}

/**
 * Stops that cross processes: `tasks/cancel` may reach any process, while a run executes in
 * one. The stop goes out as a Postgres NOTIFY, which every process hears on a connection it
 * keeps listening, and the process that executes the run (for that member) stops it. A lost
 * connection listens again once the database answers.
 */
export class RunCancels {
  private client: pg.PoolClient | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly onCancel: (notice: CancelNotice) => void,
  ) {}

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

  /** Tells every process to stop `run`, if it executes it for `member`. */
  async send(notice: CancelNotice): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)]);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.client?.release(true);
    this.client = undefined;
  }

  private heard(payload: string | undefined): void {
    try {
      const notice = JSON.parse(payload ?? '') as Partial<CancelNotice>;
      if (typeof notice.member === 'string' && typeof notice.run === 'string' && typeof notice.reason === 'string')
        this.onCancel({ member: notice.member, run: notice.run, reason: notice.reason });
    } catch {
      this.logger.warn({ payload: payload?.slice(0, 200) }, 'a stop notice that is not one was ignored');
    }
  }

  private lost(client: pg.PoolClient, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.release(true);
    this.logger.warn({ err: error }, 'the connection that hears stops of runs was lost; listening again shortly');
    this.again();
  }

  private again(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => void this.listen(), RECONNECT_MS);
    this.retry.unref();
  }
}
