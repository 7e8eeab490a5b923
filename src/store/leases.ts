import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { NOFOLLOW, NONBLOCK } from './open-flags.js';
import type { Disk } from './disk.js';
import { removeOwnFile } from './files.js';
import { ownedByUs, unlessCode } from './private-dir.js';
import { StoreError } from './store-error.js';

/** How often a process that runs runs touches its lease. */
const LEASE_TOUCH_MS = 10_000;
/** A lease untouched for this long is a process gone: several touches missed in a row. */
export const LEASE_FRESH_MS = 45_000;

/** An instance id as owners are made: the only names a lease file has. */
const INSTANCE = /^[0-9a-f]{8,64}$/;

/**
 * Leases, for the processes the kernel cannot be asked about (another machine sharing the
 * output folder, another container, a system without /proc): `.owners/<instance>`, a small
 * private file whose time the live process sets every few seconds while it runs runs.
 */
export class Leases {
  constructor(
    private readonly dir: string,
    private readonly disk: Disk,
    private readonly prepare: (signal: AbortSignal) => Promise<void>,
  ) {}

  /** Marks `instance` alive now: its lease made (0600) or its time set, never through a symbolic link. */
  touch(instance: string): Promise<void> {
    const file = this.file(instance);
    return this.disk.limit(`touching ${file}`, async (signal) => {
      await this.prepare(signal);
      const opening = () => open(file, constants.O_WRONLY | constants.O_CREAT | NOFOLLOW | NONBLOCK, 0o600);
      const handle = await this.disk.inFolders(file, signal, opening);
      try {
        const info = await handle.stat();
        if (!info.isFile() || !ownedByUs(info)) throw new StoreError('ERR_STORE_UNSAFE', `${file} is not a lease of ours`);
        const now = new Date();
        await handle.utimes(now, now);
      } finally {
        await handle.close();
      }
    });
  }

  /** Whether `instance`'s lease was touched less than `maxAgeMs` ago; false for a name no owner of ours has. */
  async fresh(instance: string, maxAgeMs = LEASE_FRESH_MS): Promise<boolean> {
    if (!INSTANCE.test(instance)) return false;
    const file = path.join(this.dir, instance);
    const info = await this.disk.limit(`reading ${file}`, () => lstat(file).catch(unlessCode('ENOENT', 'ENOTDIR')));
    return !!info?.isFile() && ownedByUs(info) && Date.now() - info.mtimeMs < maxAgeMs;
  }

  /** Removes `instance`'s lease, if it is a regular file of ours: that process runs no run any more. */
  remove(instance: string): Promise<void> {
    const file = this.file(instance);
    return this.disk.limit(`removing ${file}`, () => removeOwnFile(file));
  }

  private file(instance: string): string {
    if (!INSTANCE.test(instance)) {
      throw new StoreError('ERR_STORE_BAD_NAME', `not a valid instance id: ${JSON.stringify(instance.slice(0, 80))}`);
    }
    return path.join(this.dir, instance);
  }
}

/**
 * Keeps one process's lease fresh while it runs runs: touched at once, then every
 * `intervalMs`, and removed `lingerMs` after the last run it holds settles, unless another run
 * comes first (calls made one after another keep one lease, not a file made and removed for
 * each), or on `stop`. Every step has the store's time limit; a failed touch is dropped, never
 * thrown, and the next one tries again. The timers do not keep the process alive: a process
 * that ends calls `stop`.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  /** The removal waiting for `lingerMs` after the last run settled. */
  private lingering: NodeJS.Timeout | undefined;
  private held = 0;
  /** Touches and removals in order, so that a touch under way never brings back a removed lease. */
  private steps: Promise<void> = Promise.resolve();

  constructor(
    private readonly leases: Leases,
    private readonly instance: string,
    private readonly intervalMs = LEASE_TOUCH_MS,
    private readonly lingerMs = LEASE_TOUCH_MS,
  ) {}

  /** Keeps the lease fresh at least until `settled` settles. */
  hold(settled: Promise<unknown>): void {
    clearTimeout(this.lingering);
    if (this.held++ === 0) this.start();
    const release = () => {
      if (--this.held === 0) this.linger();
    };
    void settled.then(release, release);
  }

  /** Touches the lease now and every `intervalMs`; a lease still kept (lingering) is fresh already. */
  start(): void {
    if (this.timer) return;
    void this.step(() => this.leases.touch(this.instance));
    this.timer = setInterval(() => void this.step(() => this.leases.touch(this.instance)), this.intervalMs);
    this.timer.unref();
  }

  /** Stops touching and removes the lease; settles once it is gone (or could not be removed). */
  stop(): Promise<void> {
    clearTimeout(this.lingering);
    clearInterval(this.timer);
    this.timer = undefined;
    return this.step(() => this.leases.remove(this.instance));
  }

  private linger(): void {
    this.lingering = setTimeout(() => void this.stop(), this.lingerMs);
    this.lingering.unref();
  }

  private step(work: () => Promise<void>): Promise<void> {
    this.steps = this.steps.then(work).catch(() => undefined);
    return this.steps;
  }
}
