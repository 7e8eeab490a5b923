import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isPlainObject } from '../text/plain-object.js';
import type { Disk } from './disk.js';
import { readOwnFile, removeOwnFile } from './files.js';
import { KEY, checkName } from './names.js';
import { ensurePrivateDir, unlessCode, unsafeDirReason } from './private-dir.js';
import { StoreError } from './store-error.js';
import type { Claim, LatestClaim } from './store.js';

/** `<generation>.json`: a positive integer without a leading zero. */
const GENERATION_FILE = /^([1-9][0-9]{0,14})\.json$/;
const MAX_CLAIM_BYTES = 16 * 1024;

/**
 * Exclusive claims, so a request started by several processes at once is paid once: `.requests/<key>/<n>.json`,
 * each linked into place so only one process can make it. Whoever makes n+1 takes over from the claimant of n;
 * generations never run out, so no number of dead claimants makes a request unclaimable.
 */
export class RequestClaims {
  constructor(
    private readonly dir: string,
    private readonly disk: Disk,
    private readonly prepare: (signal: AbortSignal) => Promise<void>,
  ) {}

  async latest(key: string): Promise<LatestClaim | undefined> {
    const dir = this.folderOf(key);
    return this.disk.limit(`reading the claims in ${dir}`, async (signal) => {
      await this.prepare(signal);
      const info = await lstat(dir).catch(unlessCode('ENOENT', 'ENOTDIR'));
      if (!info) return undefined;
      const unsafe = unsafeDirReason(info, dir);
      if (unsafe) throw new StoreError('ERR_STORE_UNSAFE', `refusing to use ${dir}: ${unsafe}`);
      const [generation] = await generations(dir);
      if (generation === undefined) return undefined;
      const text = await readOwnFile(generationFile(dir, generation), MAX_CLAIM_BYTES, signal).catch(() => undefined);
      return { generation, claim: parseClaim(text) };
    });
  }

  /** True for the one caller that made it; false when it was there, or a higher generation appeared meanwhile. */
  async claim(key: string, generation: number, claim: Claim): Promise<boolean> {
    const dir = this.folderOf(key);
    if (!Number.isSafeInteger(generation) || generation < 1) {
      throw new StoreError('ERR_STORE_BAD_NAME', `not a valid generation: ${generation}`);
    }
    await this.makeFolder(key);
    if (!(await this.disk.createFile(generationFile(dir, generation), claimText(claim)))) return false;
    // The claim is made: should tidying fail, it stands (a claim that is made, then denied, would block others).
    return this.disk.limit(`tidying ${dir}`, () => keepNewest(dir, generation)).catch(() => true);
  }

  private makeFolder(key: string): Promise<void> {
    const dir = this.folderOf(key);
    return this.disk.limit(`preparing ${dir}`, (signal) => this.disk.inFolders(dir, signal, () => ensurePrivateDir(dir)));
  }

  private folderOf(key: string): string {
    checkName(key, KEY, 'request key');
    return path.join(this.dir, key);
  }
}

/** The generations in `dir`, highest first. */
async function generations(dir: string): Promise<number[]> {
  const names = await readdir(dir);
  return names
    .flatMap((name) => GENERATION_FILE.exec(name)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => b - a);
}

const generationFile = (dir: string, generation: number) => path.join(dir, `${generation}.json`);

const claimText = (claim: Claim) => `${JSON.stringify(claim)}\n`;

/** False (and `generation` goes) if a higher one exists, else true and the lower ones go. */
async function keepNewest(dir: string, generation: number): Promise<boolean> {
  const all = await generations(dir);
  if (all[0]! > generation) {
    await removeOwn(generationFile(dir, generation));
    return false;
  }
  for (const older of all.filter((other) => other < generation)) await removeOwn(generationFile(dir, older));
  return true;
}

/** A claim that cannot be removed is left, as a lower generation only. */
const removeOwn = (file: string): Promise<void> => removeOwnFile(file).catch(() => undefined);

function parseClaim(text: string | undefined): Claim | undefined {
  try {
    const value = JSON.parse(text ?? '') as Partial<Claim>;
    const { run_id, owner, at } = value;
    return typeof run_id === 'string' && typeof at === 'string' && isPlainObject(owner) ? { run_id, owner, at } : undefined;
  } catch {
    return undefined;
  }
}
