import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type CallToolResult, type Request, type RequestId, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { Deadline } from '../clock.js';
import { headline } from '../present/headline.js';
import { LiveHandle, type RunHandle } from '../run/handle.js';
import type { RunRecord } from '../run/record.js';
import type { Runs } from '../run/runs.js';

/** How long a finished task's result stays available when the client asks for no ttl, and the most it may ask for. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** What the client is told about how often to ask. */
const POLL_INTERVAL_MS = 2000;
/** How long a result asked for just after a cancel waits for the run to wind down. */
const SETTLE_MS = 3000;

interface Entry {
  task: Task;
  /**
   * This process's run, held while it runs. Any other run (another process's, or one whole on
   * disk) is looked up by id each time, since this process may take it over (resume it).
   */
  handle: LiveHandle | undefined;
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
    // The same request as a task again joins its run, as long as that task is still working.
    const existing = this.entries.get(taskId);
    if (existing?.task.status === 'working') return existing.task;
    const now = new Date().toISOString();
    const task: Task = { taskId, status: 'working', ttl: Math.min(params.ttl ?? DEFAULT_TTL_MS, MAX_TTL_MS), createdAt: now, lastUpdatedAt: now, pollInterval: POLL_INTERVAL_MS };
    this.add({ task, handle: held(handle), plain });
    return task;
  }

  isPlain(taskId: string): boolean {
    return this.entries.get(taskId)?.plain ?? false;
  }

  /** A plain call that failed before its result was stored. */
  forget(taskId: string): void {
    this.entries.delete(taskId);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const entry = await this.entry(taskId);
    if (!entry) return null;
    const handle = entry.result ? undefined : await this.handleOf(entry);
    if (handle) this.follow(entry, await handle.current());
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
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `No task ${taskId}`);
    if (entry.plain) this.forget(taskId);
    if (entry.result) return entry.result;
    const handle = await this.handleOf(entry);
    if (!handle) throw new McpError(ErrorCode.InternalError, `Run ${taskId} can no longer be read: its folder is gone or unreadable.`);
    // Just cancelled: the run is stopping its requests; its result says so once it has.
    for (const deadline = Deadline.after(SETTLE_MS); (await handle.current()).status === 'running' && deadline.msLeft() > 0; ) await handle.nextChange(250);
    return this.present(handle);
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const entry = await this.entry(taskId);
    if (!entry) return;
    const handle = status === 'cancelled' ? await this.handleOf(entry) : undefined;
    if (handle && !handle.cancel('cancelled by the client (tasks/cancel)')) {
      throw new McpError(ErrorCode.InvalidRequest, `Run ${taskId} belongs to another server process; it can only be stopped there.`);
    }
    Object.assign(entry.task, { status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage ? { statusMessage } : {}) });
    if (status !== 'working') this.expire(entry);
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
    const task: Task = { taskId, status: 'working', ttl: DEFAULT_TTL_MS, createdAt: record.started_at, lastUpdatedAt: record.updated_at, pollInterval: POLL_INTERVAL_MS };
    return this.add({ task, handle: held(handle), plain: false });
  }

  private add(entry: Entry): Entry {
    this.entries.set(entry.task.taskId, entry);
    // A plain call's task is forgotten once its result is read. Any other is forgotten its ttl
    // after its run ends, if this process runs it (and lets go of the run once it is on disk),
    // or else after it is first asked for: it is made again from the run if asked for later.
    if (entry.plain) return entry;
    if (!entry.handle) this.expire(entry);
    void entry.handle?.settled.then(() => {
      this.expire(entry);
      if (entry.handle?.onDisk) entry.handle = undefined;
    });
    return entry;
  }

  /** The entry's run: held, or (a task's, once on disk) found by its id, which is the task's. */
  private async handleOf(entry: Entry): Promise<RunHandle | undefined> {
    return entry.handle ?? (entry.plain ? undefined : this.runs.find(entry.task.taskId));
  }

  /** The task's status follows its run's. */
  private follow(entry: Entry, record: Readonly<RunRecord>): void {
    const status = taskStatus(record);
    if (entry.task.status === 'cancelled' || status === entry.task.status) return;
    Object.assign(entry.task, { status, statusMessage: headline(record), lastUpdatedAt: new Date().toISOString() });
    if (status !== 'working') this.expire(entry);
  }

  private expire(entry: Entry): void {
    const forget = () => {
      if (this.entries.get(entry.task.taskId) === entry) this.entries.delete(entry.task.taskId);
    };
    setTimeout(forget, entry.task.ttl ?? DEFAULT_TTL_MS).unref();
  }
}

/** Only this process's own run is held. */
function held(handle: RunHandle | undefined): LiveHandle | undefined {
  return handle instanceof LiveHandle ? handle : undefined;
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
