import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import path from 'node:path';
import { NOFOLLOW, NONBLOCK } from './open-flags.js';
import type { Disk } from './disk.js';
import { removeOwnFile } from './files.js';
import { ownedByUs, unlessCode } from './private-dir.js';
import { StoreError } from './store-error.js';

const LEASE_TOUCH_MS = 10_000;
/** A lease untouched for this long is a process gone: several touches missed in a row. */
const LEASE_FRESH_MS = 45_000;

const INSTANCE = /^[0-9a-f]{8,64}$/;

/**
 * For processes the kernel cannot be asked about (another machine or container, no /proc): `.owners/<instance>`,
 * a private file whose time the live process sets every few seconds while it runs runs.
 */
export class Leases {
  constructor(
    private readonly dir: string,
    private readonly disk: Disk,
    private readonly prepare: (signal: AbortSignal) => Promise<void>,
  ) {}

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

  async fresh(instance: string, maxAgeMs = LEASE_FRESH_MS): Promise<boolean> {
    if (!INSTANCE.test(instance)) return false;
    const file = path.join(this.dir, instance);
    const info = await this.disk.limit(`reading ${file}`, () => lstat(file).catch(unlessCode('ENOENT', 'ENOTDIR')));
    return !!info?.isFile() && ownedByUs(info) && Date.now() - info.mtimeMs < maxAgeMs;
  }

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
 * Touches the lease every `intervalMs` while runs are held, and removes it `lingerMs` after the last settles,
 * so calls made one after another keep one lease. A failed touch is dropped; the next one tries again.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private lingering: NodeJS.Timeout | undefined;
  private held = 0;
  /** In order, so that a touch under way never brings back a removed lease. */
  private steps: Promise<void> = Promise.resolve();

  constructor(
    private readonly leases: Leases,
    private readonly instance: string,
    private readonly intervalMs = LEASE_TOUCH_MS,
    private readonly lingerMs = LEASE_TOUCH_MS,
  ) {}

  /** A lease still lingering is fresh already: it goes on being touched. */
  hold(settled: Promise<unknown>): void {
    clearTimeout(this.lingering);
    if (this.held++ === 0 && !this.timer) {
      const touch = () => void this.step(() => this.leases.touch(this.instance));
      touch();
      this.timer = setInterval(touch, this.intervalMs).unref();
    }
    const release = () => {
      if (--this.held === 0) this.lingering = setTimeout(() => void this.stop(), this.lingerMs).unref();
    };
    void settled.then(release, release);
  }

  stop(): Promise<void> {
    clearTimeout(this.lingering);
    clearInterval(this.timer);
    this.timer = undefined;
    return this.step(() => this.leases.remove(this.instance));
  }

  private step(work: () => Promise<void>): Promise<void> {
    this.steps = this.steps.then(work).catch(() => undefined);
    return this.steps;
  }
}
