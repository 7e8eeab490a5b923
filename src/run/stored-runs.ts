import { setTimeout as sleep } from 'node:timers/promises';
import { ok, type Result } from '../result.js';
import type { RunStorage } from '../store/store.js';
import { ChangeSignal, changeWithin, waitsForChange } from './change-signal.js';
import type { Liveness } from './liveness.js';
import { STATUS, type RunRecord } from './record.js';
import type { LookupError } from './service.js';
import { StoredRun } from './stored.js';

const POLL_MS = 250;

interface Watch {
  run: StoredRun;
  record: RunRecord;
  version: number;
  changes: ChangeSignal;
  watchers: number;
  polling: boolean;
}

/** Runs of other processes, known from their folders; however many waiters follow one run, one poll loop reads its journal. */
export class StoredRuns {
  private readonly watches = new Map<string, Watch>();
  /** Requests within POLL_MS of each other share one read. */
  private readonly fresh = new Map<string, Promise<Result<StoredRun, LookupError>>>();

  constructor(
    private readonly store: RunStorage,
    readonly liveness: Liveness,
  ) {}

  /** Read now: for deciding what to pay for, nothing older will do. */
  read(id: string, maxBytes?: number): Promise<Result<StoredRun, LookupError>> {
    return StoredRun.open(this.store, this.liveness, id, maxBytes);
  }

  open(id: string): Promise<Result<StoredRun, LookupError>> {
    const watched = this.watches.get(id);
    if (watched) return Promise.resolve(ok(watched.run));
    const known = this.fresh.get(id);
    if (known) return known;
    const opened = StoredRun.open(this.store, this.liveness, id);
    this.fresh.set(id, opened);
    setTimeout(() => this.fresh.get(id) === opened && this.fresh.delete(id), POLL_MS).unref();
    return opened;
  }

  /** This process runs it now, or has just ended it, so what was read is out of date. */
  forget(id: string): void {
    this.fresh.delete(id);
  }

  /** A version counts the changes seen here. */
  async watch(
    id: string,
    since: number | undefined,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<Result<{ record: RunRecord; version: number }, LookupError>> {
    const watch = this.watches.get(id) ?? (await this.begin(id));
    if (!('run' in watch)) return watch;
    watch.watchers++;
    try {
      if (waitsForChange(since, watch.version, waitMs, STATUS[watch.record.status].settled)) {
        this.poll(watch);
        await changeWithin(watch.changes.wait(since), waitMs, signal);
      }
      return ok({ record: watch.record, version: watch.version });
    } finally {
      if (--watch.watchers === 0) this.watches.delete(id);
    }
  }

  private async begin(id: string): Promise<Watch | Result<never, LookupError>> {
    const opened = await this.open(id);
    if (!opened.ok) return opened;
    const raced = this.watches.get(id);
    if (raced) return raced;
    const watch: Watch = {
      run: opened.value,
      record: opened.value.effective(),
      version: 0,
      changes: new ChangeSignal(),
      watchers: 0,
      polling: false,
    };
    this.watches.set(id, watch);
    return watch;
  }

  private poll(watch: Watch): void {
    if (watch.polling) return;
    watch.polling = true;
    void (async () => {
      while (watch.watchers > 0 && !STATUS[watch.record.status].settled) {
        await sleep(POLL_MS);
        await this.reread(watch);
      }
      watch.polling = false;
    })();
  }

  private async reread(watch: Watch): Promise<void> {
    const record = await watch.run.refresh();
    if (record.updated_at === watch.record.updated_at && record.status === watch.record.status) return;
    watch.record = record;
    watch.version++;
    watch.changes.notify();
  }
}
