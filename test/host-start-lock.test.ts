import { spawnSync } from 'node:child_process';
import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleLock } from '../src/host/connect.js';
import { tempDir } from './support/harness.js';

/** A lock file holding `text`, last written `ageMs` ago. */
async function lockFile(text: string, ageMs = 0): Promise<string> {
  const file = path.join(await tempDir(), 'host.lock');
  await writeFile(file, text);
  const when = (Date.now() - ageMs) / 1000;
  await utimes(file, when, when);
  return file;
}

describe('the run host start lock', () => {
  it('is held while its starter lives', async () => {
    expect(await staleLock(await lockFile(JSON.stringify({ pid: process.pid }), 5_000))).toBe(false);
  });

  it('is stale once its starter is dead', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(await staleLock(await lockFile(JSON.stringify({ pid: dead })))).toBe(true);
  });

  it('is stale when left half-made (empty or garbled) by a starter that died, instead of throwing', async () => {
    expect(await staleLock(await lockFile('', 2_000))).toBe(true);
    expect(await staleLock(await lockFile('{"pid": 12', 2_000))).toBe(true);
  });

  it('gives a starter that has just made it time to name itself', async () => {
    expect(await staleLock(await lockFile(''))).toBe(false);
  });
});
