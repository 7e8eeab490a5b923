import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { StructuredResult } from '../src/present/output-schema.js';
import { Deadline } from '../src/clock.js';
import { RunHandle } from '../src/run/handle.js';
import { Run } from '../src/run/run.js';
import { readProcStat } from '../src/run/liveness.js';
import { RunFolder } from '../src/store/run-store.js';
import type { Owner, RunRecord } from '../src/run/record.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { collected } from './support/gc.js';
import { callTool, harnessesClosedAfterEach, mustStart, tempDir, type Harness, type startHarness } from './support/harness.js';
import { waitFor } from './support/wait.js';

/**
 * Runs outlive the calls that start them (SPEC §8): a call returns `running` when its budget
 * runs out, get_run collects the rest, the same request joins its run instead of paying again,
 * only a user's stop ends a run, and an interrupted run is resumed.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const startClosedAfterEach = harnessesClosedAfterEach();

afterAll(() => fake.close());

const start = (env: Record<string, string> = {}, options: Parameters<typeof startHarness>[2] = {}): Promise<Harness> =>
  startClosedAfterEach(fake, env, options);

/** Three candidates, the last one slow, and a synthesizer, all named after `prefix`. */
function slowThird(prefix: string, thirdMs = 1500) {
  fake.on(`${prefix}/one`, { answer: `one from ${prefix}`, delayMs: 20 });
  fake.on(`${prefix}/two`, { answer: `two from ${prefix}`, delayMs: 40 });
  fake.on(`${prefix}/three`, { answer: `three from ${prefix}`, delayMs: thirdMs });
  fake.on(`${prefix}/synth`, { answer: `synthesis for ${prefix}`, delayMs: 50 });
  return { PARALLEL_LLM_MODELS: `${prefix}/one,${prefix}/two,${prefix}/three`, PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` };
}

const processPrompt = (harness: Harness, args: Record<string, unknown>, options?: Parameters<typeof callTool>[3]) =>
  callTool(harness, 'process_prompt', args, options);
const getRun = (harness: Harness, args: Record<string, unknown>, options?: Parameters<typeof callTool>[3]) =>
  callTool(harness, 'get_run', args, options);

/** Calls get_run until the run is over; returns every result, the last one final. */
async function collect(harness: Harness, runId: string, maxCalls = 10): Promise<StructuredResult[]> {
  const results: StructuredResult[] = [];
  for (let i = 0; i < maxCalls; i++) {
    const { data } = await getRun(harness, { run_id: runId });
    results.push(data!);
    if (data!.status !== 'running') return results;
  }
  throw new Error(`still running after ${maxCalls} get_run calls`);
}

const requests = (model: string) => fake.requestsFor(model).length;

/** A run stopped by its server's shutdown with two of its three candidates answered; `env` and `outputDir` start another server on it. */
async function interruptedRun(prefix: string) {
  const outputDir = await tempDir();
  const env = { ...slowThird(prefix, 5000), PARALLEL_LLM_BUDGET_MS: '300' };
  const first = await start(env, { outputDir });
  const { data } = await processPrompt(first, { prompt: 'q' });
  await first.app.runs.interruptAll();
  return { outputDir, env, data: data! };
}

const readJournal = async (runFolder: string): Promise<RunRecord> => JSON.parse(await readFile(path.join(runFolder, 'run.json'), 'utf8'));

/** Rewrites a run's journal as a crash or a failed write would leave it. */
async function rewriteJournal(runFolder: string, change: (journal: RunRecord) => void): Promise<void> {
  const journal = await readJournal(runFolder);
  change(journal);
  await writeFile(path.join(runFolder, 'run.json'), JSON.stringify(journal));
}

/** An owner whose process is gone. */
const goneOwner = (journal: RunRecord): Owner => ({ ...journal.owner, pid: 2 ** 22 + 1, instance: 'gone' });

describe('a call whose budget runs out', () => {
  it('returns running with the answers so far and who is still working, and get_run collects the one synthesis', async () => {
    const harness = await start({ ...slowThird('budget', 4000), PARALLEL_LLM_BUDGET_MS: '1200' });
    const started = Date.now();
    const { result, text, data } = await processPrompt(harness, { prompt: 'q' });
    // Back when the budget ran out, long before the slow model answers.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.isError).toBeFalsy();
    expect(data).toMatchObject({ status: 'running', still_running: ['budget/three'], answer: null, joined: 'new' });
    expect(data!.next_step).toBe(`Call get_run with {"run_id":"${data!.run_id}","poll":1} to wait for the synthesis.`);
    expect(data!.next_call).toEqual({ tool: 'get_run', arguments: { run_id: data!.run_id, poll: 1 } });
    expect(text.split('\n')[0]).toBe(
      `Still running: 2 of 3 models answered so far; waiting for budget/three. Call get_run with {"run_id":"${data!.run_id}","poll":1} to wait for the synthesis; the run goes on meanwhile, and nothing is lost or paid twice.`,
    );
    expect(data!.models.map((m) => [m.status, m.answer])).toEqual([
      ['answered', 'one from budget'],
      ['answered', 'two from budget'],
      ['running', null],
    ]);
    expect(text).toContain('## Candidate 1: budget/one\n\none from budget');

    const results = await collect(harness, data!.run_id);
    const final = results.at(-1)!;
    expect(final).toMatchObject({ status: 'complete', answer: 'synthesis for budget', run_id: data!.run_id });
    // Each get_run waits out its budget rather than answering at once: a few calls, never a busy poll (a loaded machine may need one or two more).
    expect(results.length).toBeLessThanOrEqual(5);
    expect(['budget/one', 'budget/two', 'budget/three', 'budget/synth'].map(requests)).toEqual([1, 1, 1, 1]);
    expect(JSON.stringify(fake.requestsFor('budget/synth')[0]!.body)).toContain('three from budget');
  });

  it('keeps the budget on a monotonic clock: a jump of the wall clock does not cut the call short', async () => {
    const harness = await start({ ...slowThird('clock', 600), PARALLEL_LLM_BUDGET_MS: '5000' });
    const realNow = Date.now.bind(Date);
    const jump = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 3_600_000);
    try {
      const { data } = await processPrompt(harness, { prompt: 'q' });
      expect(data!.status).toBe('complete');
    } finally {
      jump.mockRestore();
    }
  });

  it('reports progress at every step and between steps while get_run waits, strictly increasing, none after the result', async () => {
    const harness = await start({ ...slowThird('progress', 700), PARALLEL_LLM_BUDGET_MS: '5000' }, { heartbeatMs: 100 });
    // The client's own limit ends the first call; get_run then waits for the rest.
    await expect(processPrompt(harness, { prompt: 'q' }, { timeout: 100 })).rejects.toThrow(/timed out/);
    const runId = (await harness.app.service.list(1))[0]!.id;
    const updates: Array<{ progress: number; total?: number; message?: string; at: number }> = [];
    let done = false;
    let afterResult = 0;
    const final = await getRun(
      harness,
      { run_id: runId },
      {
        onprogress: (update) => {
          updates.push({ ...update, at: Date.now() });
          if (done) afterResult++;
        },
      },
    );
    done = true;
    // The SDK drops a request's progress handler with its result: a notice after it comes here as an error.
    const late: Error[] = [];
    harness.client.onerror = (error) => late.push(error);
    // Real time: a notice sent after the result would come within the next heartbeat (100 ms).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(late).toEqual([]);
    expect(final.data!.status).toBe('complete');
    expect(afterResult).toBe(0);
    const progress = updates.map((u) => u.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
    expect(updates.every((u) => u.total === 5)).toBe(true);
    const gaps = updates.slice(1).map((u, i) => u.at - updates[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(400);
    const messages = updates.map((u) => u.message ?? '');
    expect(messages.some((m) => m.includes('waiting for progress/three'))).toBe(true);
    expect(messages.some((m) => m.includes('progress/three answered in'))).toBe(true);
    expect(messages.some((m) => m.includes('synthesizing 3 answers with progress/synth'))).toBe(true);
  });
});

describe('the same request again', () => {
  it('joins the running run, then returns the finished one, without asking anyone again; fresh asks anew', async () => {
    const harness = await start({ ...slowThird('again', 600), PARALLEL_LLM_BUDGET_MS: '200' });
    const first = await processPrompt(harness, { prompt: 'same question' });
    expect(first.data!.status).toBe('running');
    const second = await processPrompt(harness, { prompt: 'same question' });
    expect(second.data).toMatchObject({ run_id: first.data!.run_id, joined: 'attached' });
    await collect(harness, first.data!.run_id);
    const third = await processPrompt(harness, { prompt: 'same question' });
    expect(third.data).toMatchObject({ run_id: first.data!.run_id, joined: 'attached', status: 'complete', answer: 'synthesis for again' });
    expect(['again/one', 'again/three', 'again/synth'].map(requests)).toEqual([1, 1, 1]);

    const fresh = await processPrompt(harness, { prompt: 'same question', fresh: true });
    expect(fresh.data!.run_id).not.toBe(first.data!.run_id);
    expect(fresh.data!.joined).toBe('new');
    expect(requests('again/one')).toBe(2);
  });

  it('asks once when the same request arrives twice at the same moment', async () => {
    const harness = await start({ ...slowThird('twice', 10), PARALLEL_LLM_BUDGET_MS: '5000' });
    const [a, b] = await Promise.all([processPrompt(harness, { prompt: 'at once' }), processPrompt(harness, { prompt: 'at once' })]);
    expect(a.data!.run_id).toBe(b.data!.run_id);
    expect([a.data!.joined, b.data!.joined].sort()).toEqual(['attached', 'new']);
    expect(['twice/one', 'twice/synth'].map(requests)).toEqual([1, 1]);
  });

  it('finds its finished run on disk even when the request’s claims cannot be read', async () => {
    const harness = await start({ ...slowThird('noindex', 10), PARALLEL_LLM_BUDGET_MS: '5000' });
    const first = await processPrompt(harness, { prompt: 'q' });
    await harness.app.runs.idle();
    await rm(path.join(harness.outputDir, '.requests'), { recursive: true });
    const again = await processPrompt(harness, { prompt: 'q' });
    expect(again.data).toMatchObject({
      run_id: first.data!.run_id,
      joined: 'attached',
      status: 'complete',
      answer: 'synthesis for noindex',
    });
    expect(['noindex/one', 'noindex/synth'].map(requests)).toEqual([1, 1]);
  });

  it('is another request when anything that shapes the answers differs', async () => {
    const harness = await start({ ...slowThird('differs', 10), PARALLEL_LLM_BUDGET_MS: '5000' });
    const base = await processPrompt(harness, { prompt: 'q' });
    const warmer = await processPrompt(harness, { prompt: 'q', temperature: 1.1 });
    const shorter = await processPrompt(harness, { prompt: 'q', max_tokens: 99 });
    expect(new Set([base, warmer, shorter].map(({ data }) => data!.run_id)).size).toBe(3);
  });

  it('asks anew after a run in which no model answered', async () => {
    const harness = await start({ PARALLEL_LLM_MODELS: 'flaky/one', PARALLEL_LLM_SYNTHESIZER_MODEL: 'flaky/synth' });
    fake.on('flaky/one', { status: 402, error: { code: 402, message: 'Insufficient credits' } }, { answer: 'credits added' });
    fake.on('flaky/synth', { answer: 'merged' });
    const failed = await processPrompt(harness, { prompt: 'q' });
    expect(failed.data!.status).toBe('failed');
    const retried = await processPrompt(harness, { prompt: 'q' });
    expect(retried.data).toMatchObject({ status: 'complete', joined: 'new' });
  });
});

describe('cancellation', () => {
  it('ends only the call when the client’s own time limit cancels it: the run goes on and get_run collects it', async () => {
    const harness = await start({ ...slowThird('timeout', 900), PARALLEL_LLM_BUDGET_MS: '20000' });
    const abortedBefore = fake.aborted;
    await expect(processPrompt(harness, { prompt: 'q' }, { timeout: 300 })).rejects.toThrow(/timed out/);
    const [runId] = (await harness.app.service.list(1)).map((run) => run.id);
    const results = await collect(harness, runId!);
    expect(results.at(-1)).toMatchObject({ status: 'complete', answer: 'synthesis for timeout' });
    expect(fake.aborted).toBe(abortedBefore);
    expect(requests('timeout/three')).toBe(1);
  });

  it('ends only the call when Codex cancels it at its tool timeout ("MCP request cancelled by caller"): the run goes on', async () => {
    const harness = await start({ ...slowThird('codex', 600), PARALLEL_LLM_BUDGET_MS: '20000' });
    const abortedBefore = fake.aborted;
    const controller = new AbortController();
    const pending = processPrompt(harness, { prompt: 'q' }, { signal: controller.signal });
    await waitFor(() => requests('codex/three') === 1);
    controller.abort('MCP request cancelled by caller');
    await expect(pending).rejects.toThrow();
    const [runId] = (await harness.app.service.list(1)).map((run) => run.id);
    const results = await collect(harness, runId!);
    expect(results.at(-1)).toMatchObject({ status: 'complete', answer: 'synthesis for codex' });
    expect(fake.aborted).toBe(abortedBefore);
  });

  it('learns the client’s real limit from its first timeout: later calls return before it', async () => {
    // The budget allows 20 s, but this user set the client's limit to 1.5 s.
    const harness = await start(slowThird('learned', 4000));
    await expect(processPrompt(harness, { prompt: 'q' }, { timeout: 1500 })).rejects.toThrow(/timed out/);
    const [runId] = (await harness.app.service.list(1)).map((run) => run.id);
    const before = Date.now();
    const { data } = await getRun(harness, { run_id: runId, poll: 1 }, { timeout: 1500 });
    expect(Date.now() - before).toBeLessThan(1500);
    expect(data!.status).toBe('running');
    expect(data!.budget_ms).toBeLessThan(1500);
  });

  it('stops the run and every upstream request when the user cancels', async () => {
    const harness = await start({ ...slowThird('stop', 3000), PARALLEL_LLM_BUDGET_MS: '20000' });
    const abortedBefore = fake.aborted;
    await cancelAfterTwoAnswers(harness);
    await waitFor(() => fake.aborted === abortedBefore + 1);
    const record = (await harness.app.service.list(1))[0]!.state;
    await waitFor(async () => (await harness.app.service.list(1))[0]?.state?.status === 'cancelled');
    const { result, text, data } = await getRun(harness, { run_id: record!.run_id });
    expect(result.isError).toBe(true);
    expect(data!.status).toBe('cancelled');
    expect(text.split('\n')[0]).toBe(
      'Cancelled: every upstream request was stopped; the result holds the 2 of 3 answers that had arrived. The same request again reuses them and asks only the 1 other model. Cost $0.0030.',
    );
    expect(requests('stop/synth')).toBe(0);
  });

  it('stops a run whose call was cancelled before the run had even started', async () => {
    const harness = await start({ ...slowThird('early', 1500), PARALLEL_LLM_BUDGET_MS: '20000' });
    const controller = new AbortController();
    const pending = processPrompt(harness, { prompt: 'q' }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(async () => (await harness.app.service.list(1))[0]?.state?.status === 'cancelled');
    expect(requests('early/synth')).toBe(0);
  });

  it('lets a run finish after its client disconnects, and another server sharing the folder reads it', async () => {
    const outputDir = await tempDir();
    const first = await start({ ...slowThird('gone', 500), PARALLEL_LLM_BUDGET_MS: '20000' }, { outputDir });
    const pending = processPrompt(first, { prompt: 'q' });
    await waitFor(() => requests('gone/three') === 1);
    await first.client.close();
    await pending.catch(() => undefined);
    const record = (await first.app.service.list(1))[0]!.state;
    await first.app.runs.idle();
    const second = await start({ ...slowThird('gone', 500) }, { outputDir });
    const { data } = await getRun(second, { run_id: record!.run_id });
    expect(data).toMatchObject({ status: 'complete', answer: 'synthesis for gone' });
    expect(requests('gone/synth')).toBe(1);
  });
});

/** The user stops a call of `q` once two of its models have answered. */
async function cancelAfterTwoAnswers(harness: Harness): Promise<void> {
  const controller = new AbortController();
  const pending = processPrompt(harness, { prompt: 'q' }, { signal: controller.signal });
  await waitFor(async () => (await harness.app.service.list(1))[0]?.state?.candidates.filter((c) => c.status === 'answered').length === 2);
  controller.abort();
  await expect(pending).rejects.toThrow();
}

describe('a stopped run', () => {
  it('is taken over by the same request, which reuses every saved answer and asks only the models that have none', async () => {
    const harness = await start({ ...slowThird('restart', 3000), PARALLEL_LLM_BUDGET_MS: '20000' });
    await cancelAfterTwoAnswers(harness);
    await waitFor(async () => (await harness.app.service.list(1))[0]?.state?.status === 'cancelled');
    fake.on('restart/three', { answer: 'three from restart', delayMs: 20 });
    const { text, data } = await processPrompt(harness, { prompt: 'q' });
    expect(data).toMatchObject({ status: 'complete', joined: 'resumed', answer: 'synthesis for restart' });
    expect(['restart/one', 'restart/two', 'restart/three', 'restart/synth'].map(requests)).toEqual([1, 1, 2, 1]);
    expect(data!.models.map((model) => model.usage?.cost)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect(text).toContain('2 answers');
    expect(text).toContain('reused from before the run was stopped, not paid again.');
    expect(data!.new_cost).toBeLessThan(data!.totals.cost!);
  });

  it('is never joined by a request paid with another key', async () => {
    const outputDir = await tempDir();
    const first = await start(slowThird('other-key', 20), { outputDir });
    expect((await processPrompt(first, { prompt: 'q' })).data!.joined).toBe('new');
    const second = await start({ ...slowThird('other-key', 20), OPENROUTER_API_KEY: 'sk-or-v1-another-key-9876543210' }, { outputDir });
    const { data } = await processPrompt(second, { prompt: 'q' });
    expect(data!.joined).toBe('new');
  });
});

/** The request `q` to the harness's configured models, as the service takes it. */
const plainRequest = ({ config }: Harness) => ({
  prompt: 'q',
  models: config.models,
  synthesizers: config.synthesizerModels,
  temperature: 0.7,
  maxTokens: 100,
  strategy: 'synthesize' as const,
});

describe('the same request twice at the same moment', () => {
  it('starts one run, and the second caller joins it', async () => {
    const harness = await start(slowThird('at-once', 20));
    const request = plainRequest(harness);
    const [first, second] = (await Promise.all([harness.app.service.start(request), harness.app.service.start(request)])).map(mustStart);
    expect([first.joined, second.joined]).toEqual(['new', 'attached']);
    expect(second.id).toBe(first.id);
    await harness.app.runs.idle();
    expect(requests('at-once/one')).toBe(1);
  });
});

describe('memory', () => {
  it('holds no finished run that is saved whole: it is found on disk, and its memory is freed', async () => {
    const harness = await start(slowThird('held', 10));
    const { id } = mustStart(await harness.app.service.start(plainRequest(harness)));
    const run = new WeakRef(harness.app.runs.liveRun(id)!);
    await run.deref()!.settled;
    expect(harness.app.runs.liveRun(id)).toBeUndefined();
    expect(await harness.app.service.watch(id, { waitMs: 0 })).toMatchObject({ ok: true, value: { state: { status: 'complete' } } });
    expect(await collected(run)).toBe(true);
  });
});

describe('a watch until the run has ended', () => {
  it('wakes once, at the end, not at each change, for a run of this process and for one of another process', async () => {
    const outputDir = await tempDir();
    const owner = await start(slowThird('settled', 600), { outputDir });
    const other = await start({}, { outputDir });
    const { id } = mustStart(await owner.app.service.start(plainRequest(owner)));
    const atEachChange = await owner.app.service.watch(id, { since: 0, waitMs: 10_000 });
    expect(atEachChange).toMatchObject({ ok: true, value: { state: { status: 'running' } } });
    await waitFor(async () => (await other.app.service.watch(id, { waitMs: 0 })).ok);
    const [here, there] = await Promise.all(
      [owner, other].map((harness) => harness.app.service.watch(id, { since: 0, waitMs: 10_000, untilSettled: true })),
    );
    expect(here).toMatchObject({ ok: true, value: { state: { status: 'complete' } } });
    expect(there).toMatchObject({ ok: true, value: { state: { status: 'complete' } } });
  });

  it('carries the view of a run of this process as it ended, the one a separate view gives; none for another process’s run', async () => {
    const outputDir = await tempDir();
    const owner = await start(slowThird('carried', 200), { outputDir });
    const other = await start({}, { outputDir });
    const { id } = mustStart(await owner.app.service.start(plainRequest(owner)));
    const watched = await owner.app.service.watch(id, { waitMs: 10_000, untilSettled: true, viewChars: 1000 });
    expect(watched.ok && watched.value.view).toMatchObject({ state: { status: 'complete' }, answer: 'synthesis for carried' });
    const separate = await owner.app.service.view(id, 1000);
    expect(watched.ok && watched.value.view).toEqual(separate.ok && separate.value);
    const there = await other.app.service.watch(id, { waitMs: 10_000, untilSettled: true, viewChars: 1000 });
    expect(there.ok && there.value).toMatchObject({ state: { status: 'complete' } });
    expect(there.ok && there.value.view).toBeUndefined();
  });

  it('still ends at its time limit, with no view: the run has not ended', async () => {
    const harness = await start(slowThird('settled-limit', 3000));
    const { id } = mustStart(await harness.app.service.start(plainRequest(harness)));
    const watched = await harness.app.service.watch(id, { since: 0, waitMs: 300, untilSettled: true, viewChars: 1000 });
    expect(watched).toMatchObject({ ok: true, value: { state: { status: 'running' } } });
    expect(watched.ok && watched.value.view).toBeUndefined();
  });

  it('gives a reader told of each change the view with the watch that saw the end: it asks for no view after', async () => {
    const harness = await start(slowThird('told', 200));
    const { id } = mustStart(await harness.app.service.start(plainRequest(harness)));
    const service = harness.app.service;
    const views = vi.spyOn(service, 'view');
    const updates: string[] = [];
    const handle = new RunHandle(id, service);
    const view = await handle.waitForView({ deadline: Deadline.after(10_000), onUpdate: (state) => updates.push(state.status) }, 1000);
    expect(view).toMatchObject({ state: { status: 'complete' }, answer: 'synthesis for told' });
    expect(updates.length).toBeGreaterThan(0);
    expect(views).not.toHaveBeenCalled();
  });
});

describe('get_run', () => {
  it('waits on a run of another server process sharing the output folder', async () => {
    const outputDir = await tempDir();
    const owner = await start({ ...slowThird('shared', 600), PARALLEL_LLM_BUDGET_MS: '200' }, { outputDir });
    const other = await start({ PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { data } = await processPrompt(owner, { prompt: 'q' });
    expect(data!.status).toBe('running');
    const { data: collected } = await getRun(other, { run_id: data!.run_id });
    expect(collected).toMatchObject({ status: 'complete', answer: 'synthesis for shared', run_folder: data!.run_folder });
  });

  it('reads only the start of a long answer from another process’s folder, cut at the cap and never inside a character', async () => {
    const outputDir = await tempDir();
    const env = { PARALLEL_LLM_MODELS: 'long/one', PARALLEL_LLM_SYNTHESIZER_MODEL: 'long/synth', PARALLEL_LLM_MAX_ANSWER_CHARS: '1000' };
    fake.on('long/one', { answer: 'one' });
    fake.on('long/synth', { answer: 'é€😀'.repeat(1000) });
    const owner = await start(env, { outputDir });
    const { data } = await processPrompt(owner, { prompt: 'q' });
    await owner.app.runs.idle();
    const other = await start(env, { outputDir });
    const { data: read } = await getRun(other, { run_id: data!.run_id });
    expect(read).toMatchObject({ answer_cut: true, answer_chars: 4000 });
    expect(read!.answer!.startsWith('é€😀'.repeat(250))).toBe(true);
    expect(read!.answer).not.toContain('\uFFFD');
    expect(read!.answer).toContain('[... cut at 1,000 of 4,000 characters');
  });

  it('returns the run as it stands with wait_seconds: 0', async () => {
    const harness = await start({ ...slowThird('now', 1000), PARALLEL_LLM_BUDGET_MS: '100' });
    const { data } = await processPrompt(harness, { prompt: 'q' });
    const started = Date.now();
    const { data: now } = await getRun(harness, { run_id: data!.run_id, wait_seconds: 0 });
    expect(Date.now() - started).toBeLessThan(200);
    expect(now!.status).toBe('running');
  });

  it.each([
    ['a malformed id', '../../etc/passwd', /is not a run id/],
    ['an unknown id', '2020-01-01T00-00-00.000Z_00000000', /No run 2020-01-01T00-00-00\.000Z_00000000: there is no such run in /],
  ])('refuses %s with a clear isError', async (_name, runId, message) => {
    const harness = await start();
    const { result, text } = await getRun(harness, { run_id: runId });
    expect(result.isError).toBe(true);
    expect(text).toMatch(message);
  });
});

describe('an interrupted run', () => {
  it('is journaled as interrupted on shutdown, and the same request resumes it: only the models with no saved answer are asked', async () => {
    const { outputDir, env, data } = await interruptedRun('resume');
    const journal = await readJournal(data.run_folder!);
    expect(journal.status).toBe('interrupted');
    expect(journal.candidates.map((c: { status: string }) => c.status)).toEqual(['answered', 'answered', 'waiting']);

    fake.on('resume/three', { answer: 'three, at last', delayMs: 20 });
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { data: seen } = await getRun(second, { run_id: data.run_id, wait_seconds: 0 });
    expect(seen!.status).toBe('interrupted');
    expect(seen!.next_step).toBe(
      'Call process_prompt again with the same input to resume the run: saved answers are reused, not paid again.',
    );
    const { data: resumed } = await processPrompt(second, { prompt: 'q' });
    expect(resumed).toMatchObject({ run_id: data.run_id, joined: 'resumed', status: 'complete', answer: 'synthesis for resume' });
    expect(['resume/one', 'resume/two', 'resume/three', 'resume/synth'].map(requests)).toEqual([1, 1, 2, 1]);
    expect(JSON.stringify(fake.requestsFor('resume/synth')[0]!.body)).toContain('one from resume');
    await waitFor(async () => (await readJournal(data.run_folder!)).status === 'complete');
    expect(await readJournal(data.run_folder!)).toMatchObject({ resumes: 1 });
  });

  it('is resumed by one of two processes asking at the same moment; the other follows it, paying nothing', async () => {
    const { outputDir, env, data } = await interruptedRun('race');
    fake.on('race/three', { answer: 'three from race', delayMs: 200 });
    const [a, b] = await Promise.all([
      start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir }),
      start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir }),
    ]);
    const results = await Promise.all([a, b].map((harness) => processPrompt(harness, { prompt: 'q' })));
    expect(results.map(({ data: result }) => result!.joined).sort()).toEqual(['attached', 'resumed']);
    expect(results.map(({ data: result }) => [result!.run_id, result!.status])).toEqual([
      [data.run_id, 'complete'],
      [data.run_id, 'complete'],
    ]);
    expect(['race/one', 'race/two', 'race/three', 'race/synth'].map(requests)).toEqual([1, 1, 2, 1]);
  });

  it('is never taken over by another version: the same request asks anew, and the other version’s run is left as it was', async () => {
    const { outputDir, env, data } = await interruptedRun('other-version');
    await rewriteJournal(data.run_folder!, (journal) => Object.assign(journal, { owner: { ...journal.owner, version: '0.0.1-older' } }));
    fake.on('other-version/three', { answer: 'three', delayMs: 10 });
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { data: asked } = await processPrompt(second, { prompt: 'q' });
    expect(asked).toMatchObject({ joined: 'new', status: 'complete' });
    expect(asked!.run_id).not.toBe(data.run_id);
    expect((await readJournal(data.run_folder!)).status).toBe('interrupted');
  });

  it('is resumed however many processes claimed it and died before resuming it', async () => {
    const { outputDir, env, data } = await interruptedRun('claimed');
    const claims = path.join(outputDir, '.requests', (await readdir(path.join(outputDir, '.requests')))[0]!);
    const latest = Math.max(...(await readdir(claims)).map((name) => Number.parseInt(name, 10)));
    for (let dead = 1; dead <= 5; dead++) {
      const owner = { pid: 2 ** 22 + dead, host: os.hostname(), instance: `dead${dead}`.padEnd(16, '0') };
      await writeFile(
        path.join(claims, `${latest + dead}.json`),
        JSON.stringify({ run_id: data.run_id, owner, at: new Date().toISOString() }),
      );
    }
    fake.on('claimed/three', { answer: 'three', delayMs: 10 });
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { data: resumed } = await processPrompt(second, { prompt: 'q' });
    expect(resumed).toMatchObject({ run_id: data.run_id, joined: 'resumed', status: 'complete' });
  });

  it('asks again, on resume, a model whose saved answer cannot be read back', async () => {
    const { outputDir, env, data } = await interruptedRun('unreadable');
    await rm(path.join(data.run_folder!, 'candidate-1_unreadable_one.md'));
    fake.on('unreadable/three', { answer: 'three', delayMs: 10 });
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { text, data: resumed } = await processPrompt(second, { prompt: 'q' });
    expect(resumed).toMatchObject({ joined: 'resumed', status: 'complete' });
    expect(text.split('\n')[0]).toBe('All 3 models answered; synthesized by unreadable/synth. Cost $0.0060.');
    expect(['unreadable/one', 'unreadable/two', 'unreadable/three'].map(requests)).toEqual([2, 1, 2]);
  });

  it('reads as interrupted when its journal has not moved for an hour, though a process has its pid', async () => {
    const { outputDir, env, data } = await interruptedRun('stale');
    await rewriteJournal(data.run_folder!, (journal) =>
      Object.assign(journal, {
        status: 'running',
        owner: { ...journal.owner, pid: process.ppid, instance: 'reused' },
        updated_at: new Date(Date.now() - 2 * 3_600_000).toISOString(),
      }),
    );
    const second = await start(env, { outputDir });
    expect((await getRun(second, { run_id: data.run_id, wait_seconds: 0 })).data!.status).toBe('interrupted');
  });

  it('reads as interrupted when this process ran it and its last journal entry was lost', async () => {
    const harness = await start({ ...slowThird('lost', 5000), PARALLEL_LLM_BUDGET_MS: '300' });
    const { data } = await processPrompt(harness, { prompt: 'q' });
    await harness.app.runs.interruptAll();
    // The journal as a failed last write leaves it: running, owned by this very process.
    await rewriteJournal(data!.run_folder!, (journal) => (journal.status = 'running'));
    expect((await getRun(harness, { run_id: data!.run_id, wait_seconds: 0 })).data!.status).toBe('interrupted');
  });

  it('reads as interrupted once its process is gone, counting an answer saved after the last journal entry', async () => {
    const { outputDir, env, data } = await interruptedRun('killed');
    // What a kill -9 leaves: the journal still says running, owned by a process that is gone,
    // and an answer on disk that the journal never noted.
    await rewriteJournal(data.run_folder!, (journal) => {
      Object.assign(journal, { status: 'running', owner: goneOwner(journal) });
      journal.candidates[1] = { index: 2, model: 'killed/two', status: 'waiting' };
    });
    const second = await start(env, { outputDir });
    const { text, data: seen } = await getRun(second, { run_id: data.run_id, wait_seconds: 0 });
    expect(seen!.status).toBe('interrupted');
    expect(seen!.models.map((m) => m.status)).toEqual(['answered', 'answered', 'interrupted']);
    expect(text.split('\n')[0]).toBe(
      'Interrupted: the process running it stopped, with 2 of 3 answers saved. Call process_prompt again with the same input to resume it: only the 1 model without an answer will be asked. Cost $0.0030.',
    );
  });

  it('is reused, not paid again, when its process died after saving the synthesis but before the last journal entry', async () => {
    const outputDir = await tempDir();
    const env = slowThird('last-entry', 20);
    const first = await start(env, { outputDir });
    const { data } = await processPrompt(first, { prompt: 'q' });
    expect(data!.status).toBe('complete');
    await first.app.runs.idle();
    // What a kill -9 (or a failed write) between final.md's entry and the last one leaves.
    expect((await readJournal(data!.run_folder!)).synthesis.file).toBe('final.md');
    await rewriteJournal(data!.run_folder!, (journal) =>
      Object.assign(journal, { status: 'running', owner: goneOwner(journal), finished_at: undefined }),
    );
    const before = ['one', 'two', 'three', 'synth'].map((name) => requests(`last-entry/${name}`));
    const second = await start(env, { outputDir });
    const { text, data: again } = await processPrompt(second, { prompt: 'q' });
    expect(again).toMatchObject({ run_id: data!.run_id, status: 'complete', joined: 'attached', answer: 'synthesis for last-entry' });
    expect(text).toContain("Warning: The run's last journal entry was never written");
    expect(['one', 'two', 'three', 'synth'].map((name) => requests(`last-entry/${name}`))).toEqual(before);
  });
});

describe('an interrupted run under attack', () => {
  it('is resumed once: a process that reads the journal as the resumer rewrites it follows the live resumer, paying nothing', async () => {
    const { outputDir, env, data } = await interruptedRun('resumer');
    await rewriteJournal(data.run_folder!, (journal) => Object.assign(journal, { status: 'running', owner: goneOwner(journal) }));
    // Another process, alive, has just claimed the run to resume it; its first journal entry lands
    // between the late process's two reads of run.json.
    const parent = (await readProcStat(process.ppid, AbortSignal.timeout(5000)))!;
    const resumer: Owner = { ...(await readJournal(data.run_folder!)).owner, pid: process.ppid, instance: 'live-resumer' };
    resumer.start_time = parent.startTime;
    const claims = path.join(outputDir, '.requests', (await readdir(path.join(outputDir, '.requests')))[0]!);
    const latest = Math.max(...(await readdir(claims)).map((name) => Number.parseInt(name, 10)));
    const claim = { run_id: data.run_id, owner: resumer, at: new Date().toISOString() };
    await writeFile(path.join(claims, `${latest + 1}.json`), JSON.stringify(claim));
    const read = RunFolder.prototype.read;
    let reads = 0;
    const spy = vi.spyOn(RunFolder.prototype, 'read').mockImplementation(async function (this: RunFolder, name, maxBytes) {
      const text = await read.call(this, name, maxBytes);
      if (name === 'run.json' && ++reads === 1) await rewriteJournal(data.run_folder!, (journal) => (journal.owner = resumer));
      return text;
    });
    try {
      const late = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '200' }, { outputDir });
      const { data: seen } = await processPrompt(late, { prompt: 'q' });
      expect(seen).toMatchObject({ run_id: data.run_id, joined: 'attached', status: 'running' });
    } finally {
      spy.mockRestore();
    }
    expect(['resumer/one', 'resumer/two', 'resumer/three'].map(requests)).toEqual([1, 1, 1]);
  });

  it('is failed as damaged when its journal names a candidate that is not there: a re-send starts anew and never attaches', async () => {
    const { outputDir, env, data } = await interruptedRun('corrupt');
    await rewriteJournal(data.run_folder!, (journal) => (journal.candidates[2]!.index = 7));
    fake.on('corrupt/three', { answer: 'three', delayMs: 10 });
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const { text: shown } = await getRun(second, { run_id: data.run_id, wait_seconds: 0 });
    expect(shown).toContain(`run ${data.run_id} is damaged: run.json names candidate 7 in place 3 of 3`);
    const deadline = Deadline.after(4000);
    const { data: asked } = await processPrompt(second, { prompt: 'q' });
    expect(deadline.msLeft()).toBeGreaterThan(0);
    expect(asked).toMatchObject({ joined: 'new', status: 'complete' });
    expect(asked!.run_id).not.toBe(data.run_id);
  });

  it('ends failed, saying why, when its own code throws: it never reads as running for good', async () => {
    const harness = await start(slowThird('throws', 20));
    const spy = vi.spyOn(Run.prototype, 'synthesisInputs').mockImplementation(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'index')");
    });
    try {
      const { data } = await processPrompt(harness, { prompt: 'q' });
      expect(data).toMatchObject({ status: 'failed' });
      expect(data!.warnings).toContain("the run could not go on: Cannot read properties of undefined (reading 'index')");
      expect((await readJournal(data!.run_folder!)).status).toBe('failed');
    } finally {
      spy.mockRestore();
    }
  });

  it('takes over at once a claim of the request that names no run, though its owner lives', async () => {
    const outputDir = await tempDir();
    const env = slowThird('no-run', 20);
    const first = await start(env, { outputDir });
    const { data } = await processPrompt(first, { prompt: 'q', fresh: true });
    const claims = path.join(outputDir, '.requests', (await readdir(path.join(outputDir, '.requests')))[0]!);
    const latest = Math.max(...(await readdir(claims)).map((name) => Number.parseInt(name, 10)));
    const claim = { run_id: '2026-01-01T00-00-00.000Z_aaaaaaaa', owner: first.app.runs.owner, at: new Date().toISOString() };
    await writeFile(path.join(claims, `${latest + 1}.json`), JSON.stringify(claim));
    const second = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '5000' }, { outputDir });
    const deadline = Deadline.after(4000);
    const { data: asked } = await processPrompt(second, { prompt: 'q' });
    expect(deadline.msLeft()).toBeGreaterThan(0);
    expect(asked).toMatchObject({ joined: 'new', status: 'complete' });
    expect(asked!.run_id).not.toBe(data!.run_id);
  });
});
