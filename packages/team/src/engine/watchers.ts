import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { advisoryLock, closeClient, EXECUTOR_LOCK, WAIT_ENDED } from '../database.js';
import { dedicatedClient } from './connection.js';
import type { EngineLogger } from './types.js';

interface WatchOptions {
  url: string;
  selfId: string;
  logger: EngineLogger;
  /** Called when a watched peer's lock is granted, that is, when the peer is gone; the lock is held meanwhile. */
  onGone: (peerId: string) => Promise<void>;
  /** The limit of one wait on a peer's lock; a wait that reaches it is renewed on the same connection. */
  waitMs: number;
  /** The pause before a watch whose connection failed connects again. */
  retryMs: number;
}

/**
 * Watches peers for their death: one connection per peer, blocked in pg_advisory_lock on the
 * peer's executor lock, which the server grants the moment the peer's liveness connection ends
 * (a kill, a lost machine, or a stop after handing its runs over). No polling: the database
 * tells us, whenever in a wait that happens; waits are renewed only to keep each one bounded.
 */
export class PeerWatchers {
  readonly #clients = new Map<string, pg.Client | undefined>();
  readonly #closing = new AbortController();

  constructor(private readonly options: WatchOptions) {}

  /** Watches `peerId` until it is gone (then calls onGone) or until close; a peer already watched is left as is. */
  watch(peerId: string): void {
    if (this.#closing.signal.aborted || peerId === this.options.selfId || this.#clients.has(peerId)) return;
    this.#clients.set(peerId, undefined);
    void this.#follow(peerId).finally(() => this.#clients.delete(peerId));
  }

  /** The peers watched now. */
  get watched(): string[] {
    return [...this.#clients.keys()];
  }

  async #follow(peerId: string): Promise<void> {
    const { url, selfId, logger, waitMs, retryMs } = this.options;
    while (!this.#closing.signal.aborted) {
      const client = dedicatedClient(url, `plm-watch:${selfId}`.slice(0, 63), waitMs);
      this.#clients.set(peerId, client);
      try {
        await client.connect();
        await this.#waitForLock(client, peerId);
        if (this.#closing.signal.aborted) return;
        await this.options.onGone(peerId);
        return;
      } catch (error) {
        if (this.#closing.signal.aborted) return;
        logger.warn({ peer: peerId, err: (error as Error).message }, 'engine: watching a peer failed; trying again');
        await sleep(retryMs, undefined, { signal: this.#closing.signal }).catch(() => undefined);
      } finally {
        // The peer's lock goes with this connection: a dead peer's id is never used again.
        await closeClient(client);
      }
    }
  }

  #waitForLock(client: pg.Client, peerId: string): Promise<void> {
    return advisoryLock(client, EXECUTOR_LOCK, [peerId], (code) => !this.#closing.signal.aborted && WAIT_ENDED.has(code));
  }

  /** Stops every watch; the connections close, so a lock being waited for is no longer asked for. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all([...this.#clients.values()].map((client) => client && closeClient(client)));
  }
}
