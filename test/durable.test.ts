import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { readOwnKernelView, readProcStat } from '../src/run/liveness.js';
import { RunFolder } from '../src/store/run-store.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach, mustStart, tempDir, type Harness, type startHarness } from './support/harness.js';
import { mountTmpfs } from './support/tmpfs.js';
import { waitFor } from './support/wait.js';

/**
 * Runs durable and correct under faults and attack: nothing reported that is not on
 * disk, nothing paid twice, nothing stuck; real files, real processes, a real full file system.
 */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const startClosedAfterEach = harnessesClosedAfterEach();

afterAll(() => fake.close());

function models(prefix: string, slowMs = 20, synthesis: { answer?: string; delayMs?: number } = {}) {
  fake.on(`${prefix}/one`, { answer: `one from ${prefix}`, delayMs: 10 });
  fake.on(`${prefix}/two`, { answer: `two from ${prefix}`, delayMs: slowMs });
  fake.on(`${prefix}/synth`, { answer: synthesis.answer ?? `synthesis for ${prefix}`, delayMs: synthesis.delayMs ?? 10 });
  return { PARALLEL_LLM_MODELS: `${prefix}/one,${prefix}/two`, PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth` };
}

const start = (env: Record<string, string>, options: Parameters<typeof startHarness>[2] = {}): Promise<Harness> =>
  startClosedAfterEach(fake, env, options);
const journal = async (folder: string) => JSON.parse(await readFile(path.join(folder, 'run.json'), 'utf8'));
const requests = (model: string) => fake.requestsFor(model).length;

describe('durable before acknowledged', () => {
  it('sends no result before the final.md and the last journal entry it names are on disk, for each of 100 calls at once', async () => {
    const harness = await start(models('hundred'));
    const seen = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const { data } = await callTool(harness, 'process_prompt', { prompt: `question ${i}` });
        // Looked at the moment the result arrives, before anything else can run on.
        return { final: existsSync(data!.synthesizer.file!), status: (await journal(data!.run_folder!)).status as string };
      }),
    );
    expect(seen.filter(({ final }) => !final)).toEqual([]);
    expect(seen.filter(({ status }) => status !== 'complete')).toEqual([]);
  }, 30_000);

  it('never has the journal count an answer, or name a file, that is not in the run folder yet', async () => {
    const named: string[] = [];
    const write = RunFolder.prototype.write;
    const spy = vi.spyOn(RunFolder.prototype, 'write').mockImplementation(function (this: RunFolder, fileName, content) {
      if (fileName === 'run.json') {
        const record = JSON.parse(content);
        type Candidate = { status: string; file?: string; reasoning_file?: string };
        const answered = record.candidates.filter((c: Candidate) => c.status === 'answered');
        for (const c of answered.filter((c: Candidate) => !c.file)) named.push(`an answer with no file: MISSING (${JSON.stringify(c)})`);
        const files = [...record.candidates.flatMap((c: Candidate) => [c.file, c.reasoning_file]), record.synthesis.file].filter(Boolean);
        for (const file of files) named.push(`${file}: ${existsSync(path.join(this.dir, file)) ? 'there' : 'MISSING'}`);
      }
      return write.call(this, fileName, content);
    });
    try {
      fake.on('named/two', { answer: 'two', reasoning: 'thinking', delayMs: 30 });
      const harness = await start(models('named', 30));
      await Promise.all(Array.from({ length: 10 }, (_, i) => callTool(harness, 'process_prompt', { prompt: `q${i}` })));
      await harness.app.runs.idle();
    } finally {
      spy.mockRestore();
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((entry) => entry.endsWith('MISSING'))).toEqual([]);
  });
});

describe('the disk failing mid-run', () => {
  it('returns the whole answer with a warning when the disk is full for final.md, and the journal catches up once it is not', async (context) => {
    const tmpfs = await mountTmpfs(512);
    if (typeof tmpfs === 'string') return context.skip(tmpfs);
    try {
      const big = 'An answer that does not fit. '.repeat(14_000);
      const harness = await start({
        ...models('full', 300, { answer: big }),
        PARALLEL_LLM_OUTPUT_DIR: path.join(tmpfs.dir, 'runs'),
        PARALLEL_LLM_MAX_ANSWER_CHARS: '750000',
      });
      const pending = callTool(harness, 'process_prompt', { prompt: 'q' });
      // Both candidates' answers are in; now the disk fills up before the synthesis is saved.
      await waitFor(() => requests('full/synth') === 1);
      await writeFile(path.join(tmpfs.dir, 'filler'), Buffer.alloc(512 * 1024)).catch(() => undefined);
      const { result, data } = await pending;
      expect(result.isError).toBeFalsy();
      expect(data).toMatchObject({ status: 'complete', answer: big, answer_cut: false });
      expect(data!.synthesizer.file).toBeNull();
      expect(data!.warnings.join('\n')).toMatch(/could not save final\.md/);
      await rm(path.join(tmpfs.dir, 'filler'));
      await waitFor(async () => (await journal(data!.run_folder!).catch(() => ({}))).status === 'complete', 10_000);
    } finally {
      await tmpfs.unmount();
    }
  });

  it('carries the whole answer, past the result cap, in the result, get_run and the resource when final.md cannot be saved', async (context) => {
    const tmpfs = await mountTmpfs(512);
    if (typeof tmpfs === 'string') return context.skip(tmpfs);
    try {
      // Four times the default cap of 100,000 characters: the answer exists nowhere but in the result.
      const big = 'An answer that does not fit. '.repeat(14_000);
      const harness = await start({ ...models('full-cap', 300, { answer: big }), PARALLEL_LLM_OUTPUT_DIR: path.join(tmpfs.dir, 'runs') });
      const pending = callTool(harness, 'process_prompt', { prompt: 'q' });
      await waitFor(() => requests('full-cap/synth') === 1);
      await writeFile(path.join(tmpfs.dir, 'filler'), Buffer.alloc(512 * 1024)).catch(() => undefined);
      const { data } = await pending;
      expect(data).toMatchObject({ status: 'complete', answer_cut: false, synthesizer: { file: null } });
      expect(data!.answer?.length).toBe(big.length);
      const again = await callTool(harness, 'get_run', { run_id: data!.run_id });
      expect(again.data!.answer?.length).toBe(big.length);
      const read = await harness.client.readResource({ uri: `parallel-llm://runs/${data!.run_id}` });
      expect((read.contents[0] as { text: string }).text).toContain(big);
      await rm(path.join(tmpfs.dir, 'filler'));
    } finally {
      await tmpfs.unmount();
    }
  });

  it('makes a run folder removed mid-run again, and finishes the run in it', async () => {
    const harness = await start(models('removed', 400));
    const pending = callTool(harness, 'process_prompt', { prompt: 'q' });
    await waitFor(async () => (await harness.app.service.list(1))[0]?.state?.candidates[0]?.status === 'answered');
    const [listed] = await harness.app.service.list(1);
    await rm(path.join(harness.outputDir, listed!.id), { recursive: true });
    const { data } = await pending;
    expect(data!.status).toBe('complete');
    expect(await readFile(data!.synthesizer.file!, 'utf8')).toBe('synthesis for removed');
    expect((await journal(data!.run_folder!)).status).toBe('complete');
  });
});

describe('claims', () => {
  it('pays once for the same request sent by two processes at the same moment', async () => {
    const outputDir = await tempDir();
    const env = models('two-processes', 200);
    const [first, second] = await Promise.all([start(env, { outputDir }), start(env, { outputDir })]);
    const results = await Promise.all(
      [first, second].map((harness) => callTool(harness, 'process_prompt', { prompt: 'the same question' })),
    );
    expect(results.map(({ data }) => data!.joined).sort()).toEqual(['attached', 'new']);
    expect(new Set(results.map(({ data }) => data!.run_id)).size).toBe(1);
    expect(['two-processes/one', 'two-processes/two', 'two-processes/synth'].map(requests)).toEqual([1, 1, 1]);
  });

  it('refuses a key given as a model id, and writes it nowhere', async () => {
    const key = `sk-or-v1-${'0123456789abcdef'.repeat(4)}`;
    const harness = await start(models('key-as-model'));
    const { result, text } = await callTool(harness, 'process_prompt', { prompt: 'q', models: ['a/one', key] });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/must not be an API key/);
    expect(text).not.toContain(key);
    expect(fake.requests.filter((request) => request.model === key)).toEqual([]);
    const everything = await readEverything(harness.outputDir);
    expect(everything).not.toContain(key);
    expect(() => loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test', PARALLEL_LLM_MODELS: `a/one,${key}` })).toThrow(
      /PARALLEL_LLM_MODELS holds what looks like an API key/,
    );
    try {
      loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test', PARALLEL_LLM_MODELS: key });
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });
});

describe.skipIf(!readOwnKernelView())('liveness', () => {
  /** A run journal whose owner is a live process (this test's child), last changed two hours ago. */
  async function journalOwnedBy(harness: Harness, ownerStartTime: (real: number) => number) {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const stat = await readProcStat(child.pid!, new AbortController().signal);
    const { id } = mustStart(
      await harness.app.service.start({
        prompt: 'owned',
        models: ['live/one'],
        synthesizers: ['live/synth'],
        temperature: 0.7,
        maxTokens: 100,
        strategy: 'synthesize',
      }),
    );
    await harness.app.runs.idle();
    const folder = path.join(harness.outputDir, id);
    const record = await journal(folder);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    Object.assign(record, {
      status: 'running',
      updated_at: twoHoursAgo,
      finished_at: undefined,
      synthesis: { status: 'waiting', attempts: [] },
    });
    record.owner = { ...record.owner, pid: child.pid, instance: 'a0a0a0a0a0a0a0a0', start_time: ownerStartTime(stat!.startTime) };
    await writeFile(path.join(folder, 'run.json'), JSON.stringify(record));
    return { id, stop: () => child.kill('SIGKILL') };
  }

  it('reads a run whose model has been silent for two hours as running while its process lives', async () => {
    fake.on('live/one', { answer: 'one' });
    const harness = await start({});
    const { id, stop } = await journalOwnedBy(harness, (real) => real);
    try {
      expect((await callTool(harness, 'get_run', { run_id: id, wait_seconds: 0 })).data!.status).toBe('running');
    } finally {
      stop();
    }
  });

  it('reads a run whose process is gone as interrupted, though another process has its pid now', async () => {
    fake.on('live/one', { answer: 'one' });
    const harness = await start({});
    const { id, stop } = await journalOwnedBy(harness, (real) => real - 100);
    try {
      expect((await callTool(harness, 'get_run', { run_id: id, wait_seconds: 0 })).data!.status).toBe('interrupted');
    } finally {
      stop();
    }
  });
});

describe('honest reads', () => {
  it('reports a damaged journal as damaged, not as no such run, and asks the same request anew', async () => {
    const harness = await start(models('damaged'));
    const { data } = await callTool(harness, 'process_prompt', { prompt: 'q' });
    await harness.app.runs.idle();
    await writeFile(path.join(data!.run_folder!, 'run.json'), '{"format": 1, "run_id": "cut sh');
    // Reads of one run within 250 ms share one read of its journal: the next one sees the damage.
    let read = await callTool(harness, 'get_run', { run_id: data!.run_id });
    await waitFor(async () => {
      read = await callTool(harness, 'get_run', { run_id: data!.run_id });
      return read.result.isError === true;
    });
    expect(read.text).toMatch(/is damaged: run\.json is not valid JSON/);
    const again = await callTool(harness, 'process_prompt', { prompt: 'q' });
    expect(again.data).toMatchObject({ status: 'complete', joined: 'new' });
  });

  it('lists no orphan run folder (one without a journal) as a run', async () => {
    const harness = await start(models('orphan'));
    await callTool(harness, 'process_prompt', { prompt: 'q' });
    await harness.app.runs.idle();
    await mkdir(path.join(harness.outputDir, '2026-01-01T00-00-00.000Z_0badf00d'), { mode: 0o700 });
    const listed = (await harness.client.listResources()).resources.map((resource) => resource.name);
    expect(listed).toHaveLength(1);
    expect(listed).not.toContain('2026-01-01T00-00-00.000Z_0badf00d');
  });

  it('fails a task whose run folder vanished, instead of keeping it working', async () => {
    const outputDir = await tempDir();
    const env = models('vanished', 3000);
    const owner = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '100' }, { outputDir });
    const other = await start(env, { outputDir });
    const id = (await callTool(owner, 'process_prompt', { prompt: 'q' })).data!.run_id;
    expect((await other.client.experimental.tasks.getTask(id)).status).toBe('working');
    await rm(path.join(outputDir, id), { recursive: true });
    let task = await other.client.experimental.tasks.getTask(id);
    await waitFor(async () => {
      task = await other.client.experimental.tasks.getTask(id);
      return task.status !== 'working';
    });
    expect(task).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/can no longer be read/) });
    await expect(other.client.experimental.tasks.getTaskResult(id, CallToolResultSchema)).rejects.toThrow(/can no longer be read/);
  });

  it('gives many waiters on another process’s run one read of its journal between them', async () => {
    const outputDir = await tempDir();
    const env = models('shared-read', 1500);
    const owner = await start({ ...env, PARALLEL_LLM_BUDGET_MS: '100' }, { outputDir });
    const readers = await start(env, { outputDir });
    const { data } = await callTool(owner, 'process_prompt', { prompt: 'q' });
    const read = vi.spyOn(RunFolder.prototype, 'read');
    try {
      const results = await Promise.all(Array.from({ length: 40 }, () => callTool(readers, 'get_run', { run_id: data!.run_id })));
      expect(results.every(({ data: result }) => result!.status === 'complete')).toBe(true);
      const journalReads = read.mock.calls.filter(([name]) => name === 'run.json').length;
      // One loop reads it every 250 ms for all 40 (they waited about 1.5 s), not 40 loops.
      expect(journalReads).toBeLessThan(20);
    } finally {
      read.mockRestore();
    }
  });
});

/** Every file under `dir`, as text. */
async function readEverything(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n') + files.join('\n');
}
