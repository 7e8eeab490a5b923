import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PgRunStorage } from '../../packages/team/src/index.js';
import { takeClaim } from '../../src/run/claiming.js';
import { newRunId } from '../../src/store/store.js';
import { waitFor } from '../support/wait.js';
import { storeDatabase } from './run-store-setup.js';

/** What the Postgres run store shares among processes and keeps from other members: runs, claims, leases. */
const db = await storeDatabase();

const claimOf = (run_id: string) => ({ run_id, owner: { instance: run_id }, at: new Date().toISOString() });
const newInstance = () => randomBytes(8).toString('hex');

describe('PgRunStorage: members', () => {
  it('shows another member’s run exactly as a run that does not exist, in every way in', async () => {
    const ann = db.store(db.ann);
    const bob = db.store(db.bob);
    const place = await ann.createRun(newRunId());
    await place.write('run.json', '{}');
    expect(await bob.openRun(place.name)).toBeUndefined();
    expect(await bob.openRun(newRunId())).toBeUndefined();
    expect(await bob.listRuns(100)).not.toContain(place.name);
    expect(await ann.listRuns(100)).toContain(place.name);
  });

  it('keeps each member’s claims apart: the same request of two members is two runs', async () => {
    const ann = db.store(db.ann);
    const bob = db.store(db.bob);
    const key = 'same-request';
    const a = await takeClaim(ann, key, async (latest) => (latest ? undefined : claimOf('ann-run')));
    const b = await takeClaim(bob, key, async (latest) => (latest ? undefined : claimOf('bob-run')));
    expect([a.taken, a.claim.run_id, b.taken, b.claim.run_id]).toEqual([true, 'ann-run', true, 'bob-run']);
  });
});

describe('PgRunStorage: claims', () => {
  it('lets exactly one of 8 stores racing for a request, each on connections of its own, claim it; the others’ next sees the winner and follows', async () => {
    const stores = Array.from({ length: 8 }, () => db.store());
    const outcomes = await Promise.all(
      stores.map((store, i) => takeClaim(store, 'raced', async (latest) => (latest ? undefined : claimOf(`run-${i}`)))),
    );
    const winners = outcomes.filter((outcome) => outcome.taken);
    expect(winners).toHaveLength(1);
    expect(new Set(outcomes.map((outcome) => outcome.claim.run_id))).toEqual(new Set([winners[0]!.claim.run_id]));
  });

  it('calls next again after a lost race, with the claim that won', async () => {
    const [slow, fast] = [db.store(), db.store()];
    const seen: Array<string | undefined> = [];
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const losing = takeClaim(slow, 'lost-race', async (latest) => {
      seen.push(latest?.run_id);
      if (latest) return undefined;
      await gate;
      return claimOf('slow');
    });
    await waitFor(() => seen.length === 1);
    expect((await takeClaim(fast, 'lost-race', async () => claimOf('fast'))).taken).toBe(true);
    letGo();
    expect(await losing).toMatchObject({ taken: false, claim: { run_id: 'fast' } });
    expect(seen).toEqual([undefined, 'fast']);
  });

  it('takes over from the latest claimant with the next generation, and is not blocked by a damaged claim', async () => {
    const store = db.store();
    await takeClaim(store, 'taken-over', async () => claimOf('first'));
    const second = await takeClaim(store, 'taken-over', async (latest) => (latest?.run_id === 'first' ? claimOf('second') : undefined));
    expect(second).toMatchObject({ taken: true, claim: { run_id: 'second' }, generation: 2 });

    await db.pool.query(
      `INSERT INTO plm.request_claims (member_id, request_key, generation, claim) VALUES ($1, 'damaged', 1, '{"run_id": 7}')`,
      [db.ann.id],
    );
    const seen: unknown[] = [];
    const taken = await takeClaim(store, 'damaged', async (latest) => {
      seen.push(latest);
      return claimOf('fresh');
    });
    expect(seen).toEqual([undefined]);
    expect(taken).toMatchObject({ taken: true, generation: 2 });
  });

  it('refuses a key that is not a plain name', async () => {
    const refused = await takeClaim(db.store(), '../x', async () => claimOf('x')).catch((error: { code: string }) => error.code);
    expect(refused).toBe('ERR_STORE_BAD_NAME');
  });
});

describe('PgRunStorage: leases', () => {
  const children: Array<ReturnType<typeof spawn>> = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  /** A process holding `instance`'s lease; resolves once it is held. */
  async function holder(instance: string) {
    const script = path.join(import.meta.dirname, 'lease-holder.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', script, db.url, instance], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (data: Buffer) => data.toString().includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`the lease holder exited (${code})`)));
    });
    return {
      kill: () => {
        child.kill('SIGKILL');
        return exited;
      },
    };
  }

  it('reads a process that holds its lease as alive, and as gone the moment it is killed with kill -9', async () => {
    const store = db.store();
    const instance = newInstance();
    expect(await store.leaseFresh(instance)).toBe(false);
    const held = await holder(instance);
    expect(await store.leaseFresh(instance)).toBe(true);
    await held.kill();
    await waitFor(async () => !(await store.leaseFresh(instance)), 2000);
  });

  it('does not count the lock held by another connection (a peer fencing a dead one) as the lease', async () => {
    const store = db.store();
    const instance = newInstance();
    const peer = new pg.Client({ connectionString: db.url, application_name: 'plm-live:someone-else' });
    await peer.connect();
    try {
      await peer.query("SELECT pg_advisory_lock(hashtextextended('plm-exec:' || $1, 0))", [instance]);
      expect(await store.leaseFresh(instance)).toBe(false);
    } finally {
      await peer.end();
    }
  });

  it('holds the lease while runs are held, keeps it for the linger after the last, then lets it go; stop lets it go at once', async () => {
    const store = db.store(db.ann, { leaseLingerMs: 300 });
    const instance = newInstance();
    const lease = store.lease(instance);
    let settle!: () => void;
    lease.hold(new Promise<void>((resolve) => (settle = resolve)));
    await waitFor(() => store.leaseFresh(instance));
    settle();
    expect(await store.leaseFresh(instance)).toBe(true);
    await waitFor(async () => !(await store.leaseFresh(instance)));

    lease.hold(new Promise(() => undefined));
    await waitFor(() => store.leaseFresh(instance));
    await lease.stop();
    expect(await store.leaseFresh(instance)).toBe(false);
  });

  it('holds the leases of every member on one pool on one connection, each let go on its own', async () => {
    const pool = db.newPool();
    const [ann, bob] = [new PgRunStorage(pool, db.ann), new PgRunStorage(pool, db.bob)];
    const [annInstance, bobInstance] = [newInstance(), newInstance()];
    const [annLease, bobLease] = [ann.lease(annInstance), bob.lease(bobInstance)];
    annLease.hold(new Promise(() => undefined));
    bobLease.hold(new Promise(() => undefined));
    await waitFor(async () => (await ann.leaseFresh(annInstance)) && (await bob.leaseFresh(bobInstance)));
    const holders = async () =>
      (
        await db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'plm-%'",
        )
      ).rows[0]!.n;
    expect(await holders()).toBe(1);
    await annLease.stop();
    expect([await ann.leaseFresh(annInstance), await bob.leaseFresh(bobInstance)]).toEqual([false, true]);
    await bobLease.stop();
    expect(await bob.leaseFresh(bobInstance)).toBe(false);
    await waitFor(async () => (await holders()) === 0);
  });

  it('reads a name that is no instance id as gone', async () => {
    expect(await db.store().leaseFresh('gone')).toBe(false);
    expect(() => db.store().lease('../x')).toThrow(/not a valid instance id/);
  });
});
