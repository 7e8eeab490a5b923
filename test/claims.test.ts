import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeClaim } from '../src/run/claiming.js';
import type { Claim } from '../src/store/store.js';
import { RunStore } from '../src/store/run-store.js';
import { tempDir } from './support/harness.js';

const projectRoot = path.resolve(import.meta.dirname, '..');
const racer = path.join(projectRoot, 'test', 'support', 'claim-racer.ts');
const KEY = '0123456789abcdef0123456789abcdef';

const claimOf = (run_id: string, owner: object = { pid: process.pid }): Claim => ({ run_id, owner, at: new Date().toISOString() });
const claimFiles = (root: string) => readdir(path.join(root, '.requests', KEY));

interface Outcome {
  taken: boolean;
  generation: number;
  run_id: string;
}

/** Starts `count` racers, lets them all go at once once each is ready, and collects what each did. */
async function race(root: string, count: number): Promise<Outcome[]> {
  const racers = Array.from({ length: count }, (_, i) => {
    const child = spawn(process.execPath, ['--import', 'tsx', racer, root, KEY, `run-${i}`], {
      cwd: projectRoot,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    const ready = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.startsWith('ready\n')) resolve();
      }),
    );
    const done = new Promise<Outcome>((resolve, reject) =>
      child.on('exit', (code) => {
        if (code === 0) resolve(JSON.parse(output.split('\n')[1]!));
        else reject(new Error(`racer ${i} exited with ${code}`));
      }),
    );
    return { child, ready, done };
  });
  await Promise.all(racers.map((r) => r.ready));
  for (const { child } of racers) child.stdin.end('go\n');
  return Promise.all(racers.map((r) => r.done));
}

describe('request claims', () => {
  it('lets exactly one of 8 processes racing for the same request claim it; the 7 others follow its run', async () => {
    const root = await tempDir();
    const outcomes = await race(root, 8);
    const winners = outcomes.filter((outcome) => outcome.taken);
    expect(winners).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.run_id)).toEqual(Array(8).fill(winners[0]!.run_id));
    expect(outcomes.every((outcome) => outcome.generation === 1)).toBe(true);
    expect(await claimFiles(root)).toEqual(['1.json']);
  }, 30_000);

  it('lets the next claimant take over after 10 dead claimants in a row, and keeps only the newest generation', async () => {
    const store = new RunStore(await tempDir());
    const dead = (claim: Claim | undefined) => (claim?.owner as { dead?: boolean } | undefined)?.dead === true;
    for (let i = 1; i <= 10; i++) {
      const outcome = await takeClaim(store, KEY, (latest) =>
        latest === undefined || dead(latest) ? claimOf(`dead-${i}`, { dead: true }) : undefined,
      );
      expect(outcome).toMatchObject({ taken: true, generation: i });
    }
    const next = await takeClaim(store, KEY, (latest) => (dead(latest) ? claimOf('alive') : undefined));
    expect(next).toMatchObject({ taken: true, generation: 11, claim: { run_id: 'alive' } });
    expect(await claimFiles(store.rootDir)).toEqual(['11.json']);
    // A live claimant is followed, not taken over.
    const late = await takeClaim(store, KEY, (latest) => (dead(latest) ? claimOf('late') : undefined));
    expect(late).toMatchObject({ taken: false, generation: 11, claim: { run_id: 'alive' } });
  });

  it('leaves no claim when the claimant refuses, and claims a request whose folder is empty as a new one', async () => {
    const store = new RunStore(await tempDir());
    const refused = new Error('not admitted');
    await expect(
      takeClaim(store, KEY, () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    await mkdir(path.join(store.rootDir, '.requests', KEY), { recursive: true, mode: 0o700 });
    expect(await claimFiles(store.rootDir)).toEqual([]);
    expect(await takeClaim(store, KEY, (latest) => (latest ? undefined : claimOf('next')))).toMatchObject({ taken: true, generation: 1 });
    expect(await store.claims.latest(KEY)).toMatchObject({ generation: 1, claim: { run_id: 'next' } });
  });

  it('gives up with ERR_STORE_CONTENDED once the race is lost 9 times in a row, having asked next each time', async () => {
    const store = new RunStore(await tempDir());
    let asked = 0;
    // Each time, another process makes the very generation this caller is about to make.
    const losing = takeClaim(store, KEY, async () => {
      asked++;
      const generation = ((await store.claims.latest(KEY))?.generation ?? 0) + 1;
      expect(await store.claims.claim(KEY, generation, claimOf(`other-${asked}`, { dead: true }))).toBe(true);
      return claimOf(`mine-${asked}`);
    });
    await expect(losing).rejects.toMatchObject({ code: 'ERR_STORE_CONTENDED', message: `the claim of ${KEY} was lost 9 times in a row` });
    expect(asked).toBe(9);
    expect(await claimFiles(store.rootDir)).toEqual(['9.json']);
  });

  it('makes a generation once only: a second claim of it is refused', async () => {
    const store = new RunStore(await tempDir());
    expect(await store.claims.claim(KEY, 1, claimOf('first'))).toBe(true);
    expect(await store.claims.claim(KEY, 1, claimOf('second'))).toBe(false);
    expect(await store.claims.latest(KEY)).toMatchObject({ generation: 1, claim: { run_id: 'first' } });
  });

  it('refuses a claim made in a slot a higher generation freed, and removes it: the higher one stands', async () => {
    const store = new RunStore(await tempDir());
    for (let i = 1; i <= 3; i++) expect(await store.claims.claim(KEY, i, claimOf(`run-${i}`))).toBe(true);
    // A process that read the claims before generation 3 was made, and claims generation 2 only now.
    expect(await store.claims.claim(KEY, 2, claimOf('stale'))).toBe(false);
    expect(await claimFiles(store.rootDir)).toEqual(['3.json']);
    expect(await store.claims.latest(KEY)).toMatchObject({ generation: 3, claim: { run_id: 'run-3' } });
  });

  it('takes over a damaged latest claim instead of being blocked by it', async () => {
    const store = new RunStore(await tempDir());
    expect(await store.claims.claim(KEY, 1, claimOf('first'))).toBe(true);
    await writeFile(path.join(store.rootDir, '.requests', KEY, '2.json'), '{"run_id": tru');
    expect(await store.claims.latest(KEY)).toEqual({ generation: 2, claim: undefined });
    expect(await takeClaim(store, KEY, (latest) => (latest ? undefined : claimOf('after')))).toMatchObject({ taken: true, generation: 3 });
  });

  it('removes only claim files of its own naming: never a link or a file of another name', async () => {
    const root = await tempDir();
    const store = new RunStore(root);
    const folder = path.join(root, '.requests', KEY);
    const elsewhere = await tempDir();
    await writeFile(path.join(elsewhere, 'precious.txt'), 'keep me');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await symlink(path.join(elsewhere, 'precious.txt'), path.join(folder, '1.json'));
    await writeFile(path.join(folder, 'notes.txt'), 'the user put this here');
    expect(await store.claims.claim(KEY, 2, claimOf('second'))).toBe(true);
    expect((await readdir(folder)).sort()).toEqual(['1.json', '2.json', 'notes.txt']);
    expect(await readdir(elsewhere)).toEqual(['precious.txt']);
  });

  it('makes the request folders again when the output folder was removed since the last claim', async () => {
    const root = await tempDir();
    const store = new RunStore(root);
    expect(await store.claims.claim(KEY, 1, claimOf('first'))).toBe(true);
    await rm(root, { recursive: true });
    expect(await store.claims.claim(KEY, 1, claimOf('again'))).toBe(true);
    expect(await store.claims.latest(KEY)).toMatchObject({ generation: 1, claim: { run_id: 'again' } });
    expect((await stat(path.join(root, '.requests'))).mode & 0o777).toBe(0o700);
  });

  it('refuses a request folder that is a symbolic link, and a key that is not a plain name', async () => {
    const root = await tempDir();
    const store = new RunStore(root);
    await mkdir(path.join(root, '.requests'), { mode: 0o700 });
    await symlink(await tempDir(), path.join(root, '.requests', KEY));
    await expect(store.claims.latest(KEY)).rejects.toMatchObject({ code: 'ERR_STORE_UNSAFE' });
    await expect(store.claims.claim(KEY, 1, claimOf('x'))).rejects.toMatchObject({ code: 'ERR_STORE_UNSAFE' });
    await expect(store.claims.latest('../escape')).rejects.toMatchObject({ code: 'ERR_STORE_BAD_NAME' });
    await expect(store.claims.claim(KEY, 0, claimOf('x'))).rejects.toMatchObject({ code: 'ERR_STORE_BAD_NAME' });
  });
});
