import { CallToolResultSchema, ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../src/clock.js';
import { MemoryTaskRecords, type TaskEntry } from '../src/mcp/task-records.js';
import { RunTaskStore } from '../src/mcp/tasks.js';
import type { StructuredResult } from '../src/present/output-schema.js';
import { RunHandle } from '../src/run/handle.js';
import { runRequest } from '../src/mcp/run-request.js';
import { startFakeOpenRouter } from './support/fake-openrouter.js';
import { collected } from './support/gc.js';
import { callTool, harnessesClosedAfterEach, mustStart, tempDir, type Harness, type startHarness } from './support/harness.js';
import { waitFor } from './support/wait.js';

/** MCP tasks (2025-11-25): a task-capable client runs process_prompt as a task it can poll, fetch and cancel. */
const fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
const startClosedAfterEach = harnessesClosedAfterEach();

afterAll(() => fake.close());

async function start(prefix: string, slowMs: number, options: Parameters<typeof startHarness>[2] = {}): Promise<Harness> {
  fake.on(`${prefix}/one`, { answer: `one from ${prefix}`, delayMs: 20 });
  fake.on(`${prefix}/two`, { answer: `two from ${prefix}`, delayMs: slowMs });
  fake.on(`${prefix}/synth`, { answer: `synthesis for ${prefix}` });
  // A short budget: a task must not be bound by it.
  const env = {
    PARALLEL_LLM_MODELS: `${prefix}/one,${prefix}/two`,
    PARALLEL_LLM_SYNTHESIZER_MODEL: `${prefix}/synth`,
    PARALLEL_LLM_BUDGET_MS: '200',
  };
  const harness = await startClosedAfterEach(fake, env, options);
  await harness.client.listTools();
  return harness;
}

type Message = { type: string; task?: { taskId: string; status: string; ttl?: number | null }; result?: CallToolResult; error?: Error };

async function runAsTask(
  harness: Harness,
  args: Record<string, unknown>,
  onMessage: (message: Message) => void = () => undefined,
): Promise<Message[]> {
  const messages: Message[] = [];
  const stream = harness.client.experimental.tasks.callToolStream({ name: 'process_prompt', arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) {
    messages.push(message as Message);
    onMessage(message as Message);
  }
  return messages;
}

describe('process_prompt as a task', () => {
  it('gives a task-capable client a task named after its run, which it polls to the complete result, past the call budget', async () => {
    const harness = await start('task', 600);
    const messages = await runAsTask(harness, { prompt: 'q' });
    const created = messages.find((m) => m.type === 'taskCreated')!;
    expect(created.task!.status).toBe('working');
    const result = messages.at(-1)!;
    expect(result.type).toBe('result');
    const data = result.result!.structuredContent as StructuredResult;
    expect(data).toMatchObject({ status: 'complete', answer: 'synthesis for task', run_id: created.task!.taskId });
    expect((await harness.client.experimental.tasks.getTask(created.task!.taskId)).status).toBe('completed');
    const { tasks } = await harness.client.experimental.tasks.listTasks();
    expect(tasks.map((task) => task.taskId)).toEqual([created.task!.taskId]);
  });

  it('lets go of its run once the run is on disk, and still answers for it from there', async () => {
    const harness = await start('let-go', 300);
    let run: WeakRef<object> | undefined;
    const messages = await runAsTask(harness, { prompt: 'q' }, (message) => {
      if (message.type === 'taskCreated') run = new WeakRef(harness.app.runs.liveRun(message.task!.taskId)!);
    });
    const taskId = messages.find((m) => m.type === 'taskCreated')!.task!.taskId;
    await harness.app.runs.idle();
    expect(await collected(run!)).toBe(true);
    expect((await harness.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
    const result = (await harness.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ status: 'complete', answer: 'synthesis for let-go' });
  });

  it('stops the run and its upstream requests when the client cancels the task', async () => {
    const harness = await start('cancel-task', 5000);
    const abortedBefore = fake.aborted;
    let taskId = '';
    const finished = runAsTask(harness, { prompt: 'q' }, (message) => {
      if (message.type === 'taskCreated') taskId = message.task!.taskId;
    });
    // The fast model has answered and the slow one is being asked: the one request a cancel can stop.
    const answered = async () => harness.app.runs.liveRun(taskId)?.state().candidates[0]?.status === 'answered';
    await waitFor(async () => taskId !== '' && fake.requestsFor('cancel-task/two').length === 1 && (await answered()));
    const cancelled = await harness.client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    await waitFor(() => fake.aborted === abortedBefore + 1);
    await finished.catch(() => undefined);
    const result = (await harness.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect((result.structuredContent as StructuredResult).status).toBe('cancelled');
    const { data } = await callTool(harness, 'get_run', { run_id: taskId });
    expect(data!.status).toBe('cancelled');
    expect(fake.requestsFor('cancel-task/synth')).toHaveLength(0);
  });

  it('refuses with -32602 to cancel a task whose run completed after the client last saw it working, and says it completed', async () => {
    const harness = await start('cancel-late', 30);
    const { service } = harness.app;
    const tasks = new RunTaskStore(service, async () => ({ content: [] }));
    const { id } = mustStart(await service.start(runRequest('q', {}, harness.config)));
    const task = await tasks.createTask({ context: { runId: id } });
    expect(task.status).toBe('working');
    // The SDK looked at the task a moment ago (working); the run has completed since.
    await new RunHandle(id, service).wait({ deadline: Deadline.after(5000) });
    await expect(tasks.updateTaskStatus(id, 'cancelled')).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    expect((await tasks.getTask(id))!.status).toBe('completed');
  });

  it('keeps a task for a run it did not start as one after one read of the run and one write, with the status it read', async () => {
    const harness = await start('one-read', 3000);
    const { service } = harness.app;
    const writes: string[] = [];
    const records = new (class extends MemoryTaskRecords {
      override async add(entry: TaskEntry) {
        writes.push(`add ${entry.task.status}`);
        return super.add(entry);
      }
      override async update() {
        writes.push('update');
      }
    })();
    const tasks = new RunTaskStore(service, async () => ({ content: [] }), 2000, records);
    const reads = vi.spyOn(service, 'watch');
    const { id: done } = mustStart(await service.start(runRequest('done', { models: ['one-read/one'] }, harness.config)));
    await new RunHandle(done, service).wait({ deadline: Deadline.after(5000) });
    const { id: going } = mustStart(await service.start(runRequest('going', {}, harness.config)));
    reads.mockClear();
    expect(await tasks.getTask(done)).toMatchObject({ status: 'completed', statusMessage: expect.any(String) });
    expect(await tasks.getTask(going)).toMatchObject({ status: 'working' });
    expect(reads).toHaveBeenCalledTimes(2);
    expect(writes).toEqual(['add completed', 'add working']);
    reads.mockRestore();
  });

  it('never stores a plain call in the task store: only a call that asks for a task is one', async () => {
    const harness = await start('plain-unstored', 10);
    const created = vi.spyOn(RunTaskStore.prototype, 'createTask');
    try {
      expect((await callTool(harness, 'process_prompt', { prompt: 'plain' })).data!.run_id).toBeTruthy();
      expect(created).not.toHaveBeenCalled();
      await runAsTask(harness, { prompt: 'a task' });
      expect(created).toHaveBeenCalledTimes(1);
    } finally {
      created.mockRestore();
    }
  });

  it('keeps plain calls plain for clients that do not ask for a task: no task is listed, the budget holds', async () => {
    const harness = await start('plain', 1000);
    const { data } = await callTool(harness, 'process_prompt', { prompt: 'q' });
    expect(data!.status).toBe('running');
    expect((await harness.client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('answers tasks/get for a run it did not start as a task, by its run id', async () => {
    const outputDir = await tempDir();
    const first = await start('by-id', 10, { outputDir });
    const { data } = await callTool(first, 'process_prompt', { prompt: 'q' });
    await first.app.runs.idle();
    const second = await start('by-id', 10, { outputDir });
    const task = await second.client.experimental.tasks.getTask(data!.run_id);
    expect(task).toMatchObject({ taskId: data!.run_id, status: 'completed' });
    const result = (await second.client.experimental.tasks.getTaskResult(data!.run_id, CallToolResultSchema)) as CallToolResult;
    expect((result.structuredContent as StructuredResult).answer).toBe('synthesis for by-id');
  });

  it('refuses to cancel, as a task, a run that another server process runs', async () => {
    const outputDir = await tempDir();
    const owner = await start('foreign', 3000, { outputDir });
    const { data } = await callTool(owner, 'process_prompt', { prompt: 'q' });
    const other = await start('foreign', 3000, { outputDir });
    await expect(other.client.experimental.tasks.cancelTask(data!.run_id)).rejects.toThrow(/executed by another process/);
    expect(owner.app.runs.liveRun(data!.run_id)!.status).toBe('running');
  });

  it('follows, and can cancel, a run that another process ran when the task was first asked for and this one has resumed since', async () => {
    const outputDir = await tempDir();
    const owner = await start('taken-over', 5000, { outputDir });
    const { data } = await callTool(owner, 'process_prompt', { prompt: 'q' });
    const other = await start('taken-over', 5000, { outputDir });
    expect(await other.client.experimental.tasks.getTask(data!.run_id)).toMatchObject({ status: 'working' });
    await owner.app.runs.interruptAll();
    const finished = runAsTask(other, { prompt: 'q' });
    await waitFor(() => fake.requestsFor('taken-over/two').length === 2);
    expect(await other.client.experimental.tasks.getTask(data!.run_id)).toMatchObject({ status: 'working' });
    const abortedBefore = fake.aborted;
    expect((await other.client.experimental.tasks.cancelTask(data!.run_id)).status).toBe('cancelled');
    await waitFor(() => fake.aborted === abortedBefore + 1);
    await finished.catch(() => undefined);
    expect(fake.requestsFor('taken-over/one')).toHaveLength(1);
    expect(fake.requestsFor('taken-over/synth')).toHaveLength(0);
  });

  it.each([
    ['negative', -5, 60_000],
    ['huge', 1e15, 24 * 60 * 60 * 1000],
  ])('clamps a %s ttl to its bounds instead of echoing it', async (_name, ttl, kept) => {
    const harness = await start(`ttl-${ttl}`, 10);
    const stream = harness.client.experimental.tasks.callToolStream(
      { name: 'process_prompt', arguments: { prompt: 'q' } },
      CallToolResultSchema,
      { task: { ttl } },
    );
    let created: Message | undefined;
    for await (const message of stream) if (message.type === 'taskCreated') created ??= message as Message;
    expect(created!.task!.ttl).toBe(kept);
  });

  it('lists tasks a page at a time, honouring the cursor', async () => {
    const harness = await start('pages', 10);
    const ids = await Promise.all(
      Array.from(
        { length: 55 },
        async (_, i) => (await runAsTask(harness, { prompt: `q${i}` })).find((m) => m.type === 'taskCreated')!.task!.taskId,
      ),
    );
    const first = await harness.client.experimental.tasks.listTasks();
    expect(first.tasks).toHaveLength(50);
    expect(first.nextCursor).toBeDefined();
    const second = await harness.client.experimental.tasks.listTasks(first.nextCursor);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tasks, ...second.tasks].map((task) => task.taskId).sort()).toEqual([...ids].sort());
  });
});
