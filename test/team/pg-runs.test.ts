import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/run/record.js';
import type { Start } from '../../src/run/runs.js';
import type { RunStorage } from '../../src/store/store.js';
import { agreeingSynthesizer } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter } from '../support/fake-openrouter.js';
import { waitFor } from '../support/wait.js';
import { storeDatabase } from './run-store-setup.js';
import { teamRuns } from './team-runs.js';

/**
 * The run lifecycle of src/run, unchanged, on the Postgres run store: a request runs to the end
 * with everything kept in Postgres; a stopped run sent again asks only the models with no saved answer.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const db = await storeDatabase();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});
afterAll(() => fake.close());

/** Runs of `member` on a store and pool of their own, as one process has them. */
function process_(prefix: string, member = db.ann) {
  const made = teamRuns(db.store(member), fake.url, prefix);
  closing.push(made.close);
  return made;
}

/** Models a and b answer at once, c after `cMs` (then at once when asked again), and the synthesizer. */
function script(prefix: string, cMs = 20) {
  fake.on(`${prefix}/a`, { answer: `a says ${prefix} ✓`, delayMs: 10 });
  fake.on(`${prefix}/b`, { answer: `b says ${prefix} 😀`, delayMs: 10 });
  fake.on(`${prefix}/c`, { answer: `c says ${prefix}`, delayMs: cMs }, { answer: `c says ${prefix} at last`, delayMs: 10 });
  fake.on(`${prefix}/synth`, agreeingSynthesizer(`the synthesis for ${prefix}`, { delayMs: 10 }));
}

const asked = (prefix: string) =>
  Object.fromEntries(['a', 'b', 'c', 'synth'].map((model) => [model, fake.requestsFor(`${prefix}/${model}`).length]));

function live(started: Start) {
  if (!('run' in started) || !('live' in started.run)) throw new Error(`not a live run: ${JSON.stringify(started)}`);
  return started.run.live;
}

async function journal(store: RunStorage, id: string): Promise<RunRecord> {
  const place = await store.openRun(id);
  return JSON.parse((await place!.read('run.json', 1e7))!) as RunRecord;
}

/** The file of a candidate's answer, which only an answered candidate has. */
const fileOf = (candidate: RunRecord['candidates'][number]) => ('file' in candidate ? candidate.file : undefined) ?? 'none';

/** How many of the run's candidates its journal counts answered; 0 before its first entry. */
async function answered(store: RunStorage, id: string): Promise<number> {
  const text = await (await store.openRun(id))?.read('run.json', 1e7);
  return text ? (JSON.parse(text) as RunRecord).candidates.filter((candidate) => candidate.status === 'answered').length : 0;
}

describe('the run lifecycle on Postgres', () => {
  it('runs a request to the end with its journal, answers and final answer in Postgres, read back by another process', async () => {
    script('whole');
    const { runs, request } = process_('whole');
    const run = live(await runs.start(request));
    await run.settled;

    const elsewhere = db.store();
    const record = await journal(elsewhere, run.id);
    expect(record.status).toBe('complete');
    const place = (await elsewhere.openRun(run.id))!;
    const answers = await Promise.all(record.candidates.map((candidate) => place.read(fileOf(candidate), 1e6)));
    expect(answers).toEqual(['a says whole ✓', 'b says whole 😀', 'c says whole']);
    expect(await place.read(record.synthesis.file!, 1e6)).toMatch(/^the synthesis for whole/);
    expect(await place.list()).toEqual(expect.arrayContaining(['run.json', 'final.md', ...record.candidates.map(fileOf)]));
    expect(await elsewhere.listRuns(1)).toEqual([run.id]);

    // The same request from another process of the same member joins the run; from another member it is a run of theirs.
    const again = await process_('whole').runs.start(request);
    expect('run' in again && again.joined).toBe('attached');
    expect(asked('whole')).toEqual({ a: 1, b: 1, c: 1, synth: 1 });
    const bobs = live(await process_('whole', db.bob).runs.start(request));
    await bobs.settled;
    expect(bobs.id).not.toBe(run.id);
    expect(asked('whole')).toEqual({ a: 2, b: 2, c: 2, synth: 2 });
    expect(await db.store(db.bob).openRun(run.id)).toBeUndefined();
  });

  it('resumes an interrupted run sent again, asking only the models with no saved answer', async () => {
    script('resumed', 60_000);
    const first = process_('resumed');
    const run = live(await first.runs.start(first.request));
    const store = db.store();
    await waitFor(async () => (await answered(store, run.id)) === 2);
    await first.runs.interruptAll();
    expect((await journal(store, run.id)).status).toBe('interrupted');

    const second = process_('resumed');
    const started = await second.runs.start(second.request);
    expect('run' in started && started.joined).toBe('resumed');
    await live(started).settled;
    expect(asked('resumed')).toEqual({ a: 1, b: 1, c: 2, synth: 1 });
    const record = await journal(store, run.id);
    expect(record.status).toBe('complete');
    const place = (await store.openRun(run.id))!;
    expect(await place.read(fileOf(record.candidates[2]!), 1e6)).toBe('c says resumed at last');
  });
});

describe('the run lifecycle on Postgres: a process killed on another machine', () => {
  const unshare = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];
  let forbidden: string | undefined;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    forbidden = await promisify(execFile)(unshare[0]!, [...unshare.slice(1), 'true']).then(
      () => undefined,
      (error: Error) => `PID namespaces are not allowed here (${error.message.split('\n')[0]})`,
    );
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  /** A process in a PID namespace of its own (another machine, as far as pids go) running the request; resolves with the run's id. */
  async function elsewhere(prefix: string) {
    const script_ = path.join(import.meta.dirname, 'runs-child.ts');
    const child = spawn(
      unshare[0]!,
      [...unshare.slice(1), process.execPath, '--import', 'tsx', script_, db.url, db.ann.id, fake.url, prefix],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const id = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (data: Buffer) => resolve(data.toString().trim()));
      child.once('exit', (code) => reject(new Error(`the run's process exited (${code})`)));
    });
    return {
      id,
      kill: () => {
        child.kill('SIGKILL');
        return exited;
      },
    };
  }

  it('follows the run while its process holds its lease, and resumes it at once once that process is killed with kill -9', async (context) => {
    if (forbidden) return context.skip(forbidden);
    script('killed', 60_000);
    const other = await elsewhere('killed');
    const store = db.store();
    await waitFor(async () => (await answered(store, other.id)) === 2, 10_000);
    const owner = (await journal(store, other.id)).owner;
    await waitFor(() => store.leaseFresh(owner.instance));

    const here = process_('killed');
    const followed = await here.runs.start(here.request);
    expect('run' in followed && followed.joined).toBe('attached');
    expect(asked('killed')).toEqual({ a: 1, b: 1, c: 1, synth: 0 });

    await other.kill();
    // The server lets the lock go as the killed process's connection closes: within moments, not a lease's expiry.
    await waitFor(async () => !(await store.leaseFresh(owner.instance)), 2000);
    const started = await here.runs.start(here.request);
    expect('run' in started && started.joined).toBe('resumed');
    await live(started).settled;
    expect(asked('killed')).toEqual({ a: 1, b: 1, c: 2, synth: 1 });
    expect((await journal(store, other.id)).status).toBe('complete');
  });
});
