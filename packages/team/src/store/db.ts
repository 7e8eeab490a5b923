import type pg from 'pg';
import { onOwnConnection } from '../database.js';
import { TeamError } from '../errors.js';
import { storeFault } from './errors.js';

/** How long one step of the store may take (a connection, then a statement's reply), unless told otherwise. */
export const DEFAULT_OP_MS = 15_000;

export type Query = <R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

/**
 * The store's way to the database: every wait has a limit, whatever the pool was given. Getting a
 * connection is bounded here; each reply by pg's query_timeout; a transaction's statements also by
 * a statement_timeout of their own, so the server gives up (and lets go of its locks) too.
 */
export class StoreDb {
  constructor(
    readonly pool: pg.Pool,
    readonly opMs = DEFAULT_OP_MS,
  ) {}

  /** One statement; `what` names the step in an error. */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    what: string,
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return this.on(what, (query) => query<R>(text, values));
  }

  /** `work` in one transaction: all of it lands, or none. */
  transaction<T>(what: string, work: (query: Query) => Promise<T>): Promise<T> {
    return this.on(what, async (query) => {
      await query(`BEGIN; SET LOCAL statement_timeout = ${Math.ceil(this.opMs)}`);
      try {
        const result = await work(query);
        await query('COMMIT');
        return result;
      } catch (error) {
        // A connection that broke is dropped instead, which ends its transaction.
        if (!(storeFault(what, error) instanceof TeamError)) await query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  private on<T>(what: string, work: (query: Query) => Promise<T>): Promise<T> {
    const connect = () => this.connect(what).catch((error: unknown) => Promise.reject(storeFault(what, error)));
    return onOwnConnection(connect, async (client, drop) => {
      const query: Query = (text, values) => client.query({ text, values, query_timeout: this.opMs } as pg.QueryConfig);
      try {
        return await work(query);
      } catch (error) {
        const fault = storeFault(what, error);
        // A connection that timed out or broke is dropped rather than handed to the next caller.
        if (fault instanceof TeamError) drop();
        throw fault;
      }
    });
  }

  /** A connection from the pool within the limit; one that comes later goes back to the pool unused. */
  private async connect(what: string): Promise<pg.PoolClient> {
    const connecting = this.pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TeamError('database_down', `${what}: no connection to the database within ${this.opMs} ms`)),
        this.opMs,
      );
    });
    try {
      return await Promise.race([connecting, late]);
    } catch (error) {
      void connecting.then(
        (client) => client.release(),
        () => undefined,
      );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
