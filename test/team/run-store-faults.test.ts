import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/store/store.js';
import { journalOn } from '../support/journal.js';
import { waitFor, within } from '../support/wait.js';
import { startProxy } from './proxy.js';
import { storeDatabase } from './run-store-setup.js';

/** The Postgres run store when its database goes away, stops answering, or is slow: bounded waits, typed errors, nothing half kept. */
const db = await storeDatabase();
const proxy = await startProxy(db.url);
afterAll(() => proxy.close());

const kindOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: { kind?: string; code?: string }) => error.kind ?? error.code,
  );

/** A store whose every step goes through the proxy. */
const proxied = (opMs = 1000) => db.store(db.ann, { opMs }, proxy.url);

describe('PgRunStorage when the database fails', () => {
  it('refuses at once, as database_down, while the database is gone; the run’s journal catches up once it is back', async () => {
    const store = proxied();
    const place = await store.createRun(newRunId());
    const { journal } = journalOn(place, { firstMs: 50, maxMs: 200 });
    await proxy.down();
    try {
      const started = Date.now();
      expect(await kindOf(place.write('final.md', 'one'))).toBe('database_down');
      expect(await kindOf(store.openRun(place.name))).toBe('database_down');
      expect(await journal.saveRecord()).toBe(false);
      expect(Date.now() - started).toBeLessThan(3000);
      let flushed = false;
      void journal.flushed().then(() => (flushed = true));
      expect(flushed).toBe(false);
    } finally {
      await proxy.up();
    }
    await within(10_000, journal.flushed());
    const kept = await (await db.store().openRun(place.name))!.read('run.json', 10_000);
    expect(JSON.parse(kept!)).toMatchObject({ status: 'running' });
  });

  it('gives up on a database that stops answering within each step’s limit', async () => {
    const store = proxied(500);
    const place = await store.createRun(newRunId());
    proxy.silent(true);
    try {
      const started = Date.now();
      expect(await kindOf(place.read('run.json', 100))).toBe('database_down');
      expect(await kindOf(store.listRuns(5))).toBe('database_down');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      proxy.silent(false);
    }
  });

  it('fails a streamed text whose database went away midway: finish rejects, no reader sees it, and the sweep removes it', async () => {
    const place = await proxied().createRun(newRunId());
    const writer = place.writer('candidate-1_a.md');
    writer.write('x'.repeat(70_000));
    await waitFor(async () => (await db.pool.query('SELECT 1 FROM plm.run_files WHERE run_id = $1', [place.name])).rowCount === 1);
    await proxy.down();
    try {
      writer.write('y'.repeat(70_000));
      expect(await kindOf(writer.finish())).toBe('database_down');
    } finally {
      await proxy.up();
    }
    expect(await place.list()).toEqual([]);
    expect(await place.read('candidate-1_a.md', 1e6)).toBeUndefined();
    // Its row could not be removed while the database was gone: the next store to make a run sweeps it once stale.
    await db.pool.query("UPDATE plm.run_files SET updated_at = now() - interval '2 hours' WHERE run_id = $1", [place.name]);
    await proxied().createRun(newRunId());
    expect((await db.pool.query('SELECT 1 FROM plm.run_files WHERE run_id = $1', [place.name])).rowCount).toBe(0);
  });

  it('asks the writer to wait while the database is behind by four batches, and lets it go on once they are written', async () => {
    const place = await db.store().createRun(newRunId());
    const writer = place.writer('candidate-1_a.md');
    const batch = 'z'.repeat(64 * 1024);
    expect(writer.write(batch)).toBeUndefined();
    await waitFor(
      async () =>
        (await db.pool.query('SELECT 1 FROM plm.run_chunks c JOIN plm.run_files f ON f.id = c.file_id WHERE f.run_id = $1', [place.name]))
          .rowCount === 1,
    );
    // Another transaction holds the text's row: the next append waits for it, as on a slow database.
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM plm.run_files WHERE run_id = $1 FOR UPDATE', [place.name]);
    let waited: Promise<void> | undefined;
    try {
      for (let i = 0; i < 5 && !waited; i++) waited = writer.write(batch) ?? undefined;
      expect(waited).toBeInstanceOf(Promise);
      let free = false;
      void waited!.then(() => (free = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(free).toBe(false);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    await waited;
    await writer.finish();
    expect((await place.read('candidate-1_a.md', 1e7))!.length).toBe(batch.length * 6);
  });

  it('takes its lease again once the database is back', async () => {
    const instance = randomBytes(8).toString('hex');
    const lease = proxied().lease(instance);
    lease.hold(new Promise(() => undefined));
    const direct = db.store();
    try {
      await waitFor(() => direct.leaseFresh(instance));
      await proxy.down();
      await waitFor(async () => !(await direct.leaseFresh(instance)));
      await proxy.up();
      await waitFor(() => direct.leaseFresh(instance), 5000);
    } finally {
      await lease.stop();
    }
  });
});
