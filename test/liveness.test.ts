import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Liveness, parseProcStat, readOwnKernelView, readProcStat } from '../src/run/liveness.js';
import type { Owner } from '../src/run/record.js';
import { LeaseKeeper } from '../src/store/leases.js';
import { RunStore } from '../src/store/run-store.js';
import { tempDir } from './support/harness.js';
import { killProbes, startProbe } from './support/probe.js';
import { waitFor } from './support/wait.js';

const linux = existsSync('/proc/self/stat');
const TOUCH_MS = 100;
const FRESH_MS = 1000;
const LINGER_MS = 400;
const newInstance = () => randomBytes(8).toString('hex');
/** Whether `subject`'s owner is alive, asked as another process would (one that made no owner). */
const alive = (subject: { run_id: string; owner: Owner }, store: RunStore, leaseFreshMs?: number) =>
  new Liveness(store, leaseFreshMs).alive(subject);
const subject = (owner: Owner) => ({ run_id: '2026-01-01T00-00-00.000Z_00000000', owner });
/** Settles once `lease` has been touched more than `ms` after the touch it shows now; rejects once it is gone. */
async function touchedAgain(lease: string, ms = TOUCH_MS): Promise<void> {
  const { mtimeMs } = await stat(lease);
  await waitFor(async () => (await stat(lease)).mtimeMs > mtimeMs + ms);
}

afterEach(killProbes);

describe('parseProcStat', () => {
  it('counts the fields from the last parenthesis: a command name may hold spaces and parentheses', () => {
    const after = ['S', ...Array.from({ length: 49 }, (_, i) => String(i + 4))];
    after[19] = '987654';
    expect(parseProcStat(`4242 (a) b) (c d) ${after.join(' ')}\n`)).toEqual({ pid: 4242, state: 'S', startTime: 987654 });
  });

  it('refuses what is not a stat line', () => {
    for (const text of ['', 'garbage', '12 (a) S 1 2', '(a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20'])
      expect(parseProcStat(text)).toBeUndefined();
  });

  it.skipIf(!linux)("reads this process's own start time, boot and PID namespace", () => {
    const view = readOwnKernelView();
    expect(view).toMatchObject({
      start_time: expect.any(Number),
      boot_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      pid_ns: expect.stringMatching(/^pid:\[\d+\]$/),
    });
    expect(new Liveness(undefined).newOwner()).toMatchObject({
      pid: process.pid,
      host: os.hostname(),
      ...view,
      version: expect.any(String),
    });
  });
});

describe('alive: a run of this process', () => {
  it('is alive while this process runs it, and not once it has settled (its last journal entry lost)', async () => {
    const store = new RunStore(await tempDir());
    const liveness = new Liveness(store);
    const owner = liveness.newOwner();
    let settle!: () => void;
    liveness.runningHere('run-a', new Promise<void>((resolve) => (settle = resolve)));
    expect(await liveness.alive({ run_id: 'run-a', owner })).toBe(true);
    expect(await liveness.alive({ run_id: 'run-b', owner })).toBe(false);
    settle();
    await sleep(0);
    expect(await liveness.alive({ run_id: 'run-a', owner })).toBe(false);
  });
});

describe.skipIf(!linux)('alive: a process of this kernel, told by its pid and start time', () => {
  /** A real process, and an owner naming it as its own journal would. */
  async function liveProcess() {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stat = (await readProcStat(child.pid!, AbortSignal.timeout(5000)))!;
    const owner: Owner = { pid: child.pid!, host: os.hostname(), instance: newInstance(), ...readOwnKernelView() };
    owner.start_time = stat.startTime;
    return {
      owner,
      kill: () => {
        child.kill('SIGKILL');
        return exited;
      },
    };
  }

  it('reads a live process whose pid the journal names, but that started at another time, as dead: the pid was reused', async () => {
    const store = new RunStore(await tempDir());
    const { owner, kill } = await liveProcess();
    try {
      expect(await alive(subject(owner), store)).toBe(true);
      expect(await alive(subject({ ...owner, start_time: owner.start_time! - 1 }), store)).toBe(false);
    } finally {
      await kill();
    }
  });

  it('reads a process killed with kill -9 as dead at once, with no lease to expire', async () => {
    const store = new RunStore(await tempDir());
    const { owner, kill } = await liveProcess();
    expect(await alive(subject(owner), store)).toBe(true);
    await kill();
    expect(await alive(subject(owner), store)).toBe(false);
  });

  it('reads an owner recorded by an older version (no start time, no version, no lease) by its pid on this host', async () => {
    const store = new RunStore(await tempDir());
    const { owner, kill } = await liveProcess();
    const legacy = { pid: owner.pid, host: owner.host, instance: owner.instance };
    expect(await alive(subject(legacy), store)).toBe(true);
    for (const pid of [process.pid, 0, -1]) expect(await alive(subject({ ...legacy, pid }), store)).toBe(false);
    await kill();
    expect(await alive(subject(legacy), store)).toBe(false);
  });

  it('reads our own pid under an instance that is not ours, started at another time, as a previous life: dead', async () => {
    const store = new RunStore(await tempDir());
    const self = new Liveness(store).newOwner();
    expect(await alive(subject({ ...self, instance: newInstance(), start_time: self.start_time! - 100 }), store)).toBe(false);
  });
});

describe('alive: a process elsewhere, told by its lease', () => {
  it('reads a run whose model has been silent for two hours as alive while its process keeps its lease; kill -9 ends it once the lease expires', async () => {
    const outputDir = await tempDir();
    const store = new RunStore(outputDir);
    const probe = await startProbe(outputDir, TOUCH_MS);
    // Its journal, as another machine sharing the folder left it two hours ago.
    const journal = {
      ...subject({ ...probe.owner, host: 'another-machine' }),
      updated_at: new Date(Date.now() - 2 * 3_600_000).toISOString(),
    };
    await touchedAgain(path.join(store.rootDir, '.owners', probe.owner.instance));
    expect(await alive(journal, store, FRESH_MS)).toBe(true);
    await probe.kill();
    const killedAt = Date.now();
    await waitFor(async () => !(await alive(journal, store, FRESH_MS)), 5000);
    // Not before the lease had had its time.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(FRESH_MS - 2 * TOUCH_MS);
  });

  it('reads an owner with no lease, or a name that is no instance of ours, as dead', async () => {
    const store = new RunStore(await tempDir());
    for (const instance of [newInstance(), '../../etc/passwd', '']) {
      expect(await alive(subject({ pid: 4242, host: 'another-machine', instance }), store)).toBe(false);
    }
  });
});

describe.skipIf(!linux)('alive: two containers whose servers are both pid 1', () => {
  const unshare = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];
  let forbidden: string | undefined;
  beforeAll(async () => {
    forbidden = await promisify(execFile)(unshare[0]!, [...unshare.slice(1), 'true']).then(
      () => undefined,
      (error: Error) => `PID namespaces are not allowed here (${error.message.split('\n')[0]})`,
    );
    if (forbidden) console.warn(`skipped: ${forbidden}`);
  });

  it('never takes one for the other: each tells the other by its lease, and its own pid 1 in another life as dead', async (context) => {
    if (forbidden) return context.skip(forbidden);
    const outputDir = await tempDir();
    const [a, b] = await Promise.all([startProbe(outputDir, TOUCH_MS, unshare), startProbe(outputDir, TOUCH_MS, unshare)]);
    expect([a!.owner.pid, b!.owner.pid]).toEqual([1, 1]);
    expect(a!.owner.pid_ns).not.toBe(b!.owner.pid_ns);

    expect(await a!.ask(subject(b!.owner), FRESH_MS)).toBe(true);
    expect(await b!.ask(subject(a!.owner), FRESH_MS)).toBe(true);
    // What a restarted container's pid 1 finds in the journal of its previous life.
    expect(await a!.ask(subject({ ...a!.owner, instance: newInstance(), start_time: a!.owner.start_time! - 1 }), FRESH_MS)).toBe(false);

    await b!.kill();
    await waitFor(async () => !(await a!.ask(subject(b!.owner), FRESH_MS)), 5000);
    expect(await a!.ask(subject(a!.owner), FRESH_MS)).toBe(false);
  });
});

describe('the lease keeper', () => {
  it('keeps the lease fresh while a run is held, and removes it once the last one settles and no other comes within the linger', async () => {
    const store = new RunStore(await tempDir());
    const instance = newInstance();
    const keeper = new LeaseKeeper(store.leases, instance, TOUCH_MS, LINGER_MS);
    const settles: Array<() => void> = [];
    for (let i = 0; i < 2; i++) keeper.hold(new Promise<void>((resolve) => settles.push(resolve)));
    await waitFor(() => store.leases.fresh(instance, FRESH_MS));
    const lease = path.join(store.rootDir, '.owners', instance);
    expect((await stat(lease)).mode & 0o777).toBe(0o600);
    const firstTouch = (await stat(lease)).mtimeMs;
    await waitFor(async () => (await stat(lease)).mtimeMs > firstTouch);
    settles[0]!();
    await touchedAgain(lease);
    expect(await store.leases.fresh(instance, FRESH_MS)).toBe(true);
    settles[1]!();
    // The next run, within the linger, keeps the same lease: calls one after another make no file each.
    const { ino } = await stat(lease);
    keeper.hold(new Promise<void>((resolve) => settles.push(resolve)));
    // Touched after the linger would have removed it.
    await touchedAgain(lease, LINGER_MS + TOUCH_MS);
    expect((await stat(lease)).ino).toBe(ino);
    expect(await store.leases.fresh(instance, FRESH_MS)).toBe(true);
    settles[2]!();
    await touchedAgain(lease);
    expect(existsSync(lease)).toBe(true);
    await waitFor(() => !existsSync(lease));
  });

  it('removes a lingering lease at once when its process ends', async () => {
    const store = new RunStore(await tempDir());
    const instance = newInstance();
    const keeper = new LeaseKeeper(store.leases, instance, TOUCH_MS, 60_000);
    let settle!: () => void;
    keeper.hold(new Promise<void>((resolve) => (settle = resolve)));
    const lease = path.join(store.rootDir, '.owners', instance);
    await waitFor(() => existsSync(lease));
    settle();
    await touchedAgain(lease);
    expect(existsSync(lease)).toBe(true);
    await keeper.stop();
    expect(existsSync(lease)).toBe(false);
  });

  it('never touches through a symbolic link, and drops the failure instead of throwing', async () => {
    const store = new RunStore(await tempDir());
    const instance = newInstance();
    const victim = path.join(await tempDir(), 'precious.txt');
    await writeFile(victim, 'keep me');
    const before = (await stat(victim)).mtimeMs;
    await mkdir(path.join(store.rootDir, '.owners'), { recursive: true, mode: 0o700 });
    await symlink(victim, path.join(store.rootDir, '.owners', instance));

    await expect(store.leases.touch(instance)).rejects.toMatchObject({ code: 'ELOOP' });
    const keeper = new LeaseKeeper(store.leases, instance, TOUCH_MS);
    const touches = vi.spyOn(store.leases, 'touch');
    keeper.hold(new Promise(() => undefined));
    await waitFor(() => touches.mock.calls.length >= 3);
    await keeper.stop();
    expect((await stat(victim)).mtimeMs).toBe(before);
    expect(await store.leases.fresh(instance, FRESH_MS)).toBe(false);
    // The link is not ours to remove either.
    expect(await readdir(path.join(store.rootDir, '.owners'))).toEqual([instance]);
  });
});
