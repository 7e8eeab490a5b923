import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { RunHandle } from '../run/handle.js';
import type { RunRecord } from '../run/record.js';
import type { Runs } from '../run/runs.js';
import { headline } from '../present/headline.js';

/** How long a finished task's result stays available when the client asks for no ttl, and the most it may ask for. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** What the client is told about how often to ask. */
const POLL_INTERVAL_MS = 2000;

interface Entry {
  task: Task;
  handle: RunHandle | undefined;
  /** A plain call's own result: the SDK runs a plain call to a task tool through a task of its own. */
  result?: Result;
  plain: boolean;
}

/**
 * MCP tasks (2025-11-25) over runs: a task's id is its run's id, its status is the run's, its
 * result is the run's final result, and `tasks/cancel` stops the run. A client that calls
 * process_prompt without asking for a task gets a plain call: the SDK then still makes a task
 * for it, which this store marks plain, keeps out of `tasks/list`, and forgets once read.
 */
export class RunTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly runs: Runs,
    /** The run's result as the client reads it. */
    private readonly present: (handle: RunHandle) => Promise<CallToolResult>,
  ) {}

  async createTask(params: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<Task> {
    const handle = params.context?.handle as RunHandle | undefined;
    const plain = (request.params as { task?: unknown } | undefined)?.task === undefined;
    const taskId = plain || !handle ? `call-${randomUUID()}` : handle.id;
    const existing = this.entries.get(taskId);
    if (existing) return existing.task;
    const now = new Date().toISOString();
    const ttl = Math.min(params.ttl ?? DEFAULT_TTL_MS, MAX_TTL_MS);
    const task: Task = { taskId, status: 'working', ttl, createdAt: now, lastUpdatedAt: now, pollInterval: POLL_INTERVAL_MS };
    this.entries.set(taskId, { task, handle, plain });
    return task;
  }

  isPlain(taskId: string): boolean {
    return this.entries.get(taskId)?.plain ?? false;
  }

  async getTask(taskId: string): Promise<Task | null> {
    const entry = await this.entry(taskId);
    if (!entry) return null;
    if (entry.handle && !entry.result) this.follow(entry, await entry.handle.current());
    return { ...entry.task };
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    const entry = this.entries.get(taskId);
    if (!entry) return;
    entry.result = result;
    Object.assign(entry.task, { status, lastUpdatedAt: new Date().toISOString() });
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const entry = await this.entry(taskId);
    if (!entry) throw new Error(`no task ${taskId}`);
    if (entry.plain) this.entries.delete(taskId);
    return entry.result ?? this.present(entry.handle!);
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const entry = await this.entry(taskId);
    if (!entry) return;
    if (status === 'cancelled') entry.handle?.cancel('cancelled by the client (tasks/cancel)');
    Object.assign(entry.task, { status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage ? { statusMessage } : {}) });
  }

  async listTasks(): Promise<{ tasks: Task[] }> {
    const tasks = [...this.entries.values()].filter((entry) => !entry.plain);
    await Promise.all(tasks.map((entry) => this.getTask(entry.task.taskId)));
    return { tasks: tasks.map((entry) => ({ ...entry.task })) };
  }

  /** A task this store made, or one for a run it did not start (another process's, or from before a restart). */
  private async entry(taskId: string): Promise<Entry | undefined> {
    const known = this.entries.get(taskId);
    if (known) return known;
    const handle = await this.runs.find(taskId);
    if (!handle) return undefined;
    const record = await handle.current();
    const entry: Entry = { task: { taskId, status: 'working', ttl: DEFAULT_TTL_MS, createdAt: record.started_at, lastUpdatedAt: record.updated_at, pollInterval: POLL_INTERVAL_MS }, handle, plain: false };
    this.entries.set(taskId, entry);
    return entry;
  }

  /** The task's status follows its run's; a finished task is forgotten once its ttl has passed. */
  private follow(entry: Entry, record: Readonly<RunRecord>): void {
    const status = taskStatus(record);
    if (entry.task.status === 'cancelled' || status === entry.task.status) return;
    Object.assign(entry.task, { status, statusMessage: headline(record), lastUpdatedAt: new Date().toISOString() });
    if (status !== 'working') setTimeout(() => this.entries.delete(entry.task.taskId), entry.task.ttl ?? DEFAULT_TTL_MS).unref();
  }
}

function taskStatus(record: Readonly<RunRecord>): Task['status'] {
  switch (record.status) {
    case 'running':
      return 'working';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'interrupted':
      return 'failed';
    default:
      return 'completed';
  }
}
