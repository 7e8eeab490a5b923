import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type CallToolResult, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { Deadline } from '../clock.js';
import { headline } from '../present/headline.js';
import { RunHandle } from '../run/handle.js';
import type { RunState } from '../run/record.js';
import { STATUS } from '../run/status.js';
import type { RunService } from '../run/service.js';
import { MemoryTaskRecords, type TaskEntry as Entry, type TaskRecords } from './task-records.js';

/** How long a task is kept when the client asks for no ttl, and the least and most it may ask for. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MIN_TTL_MS = 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a cancel, and a result asked for just after one, wait for the run to wind down. */
const SETTLE_MS = 3000;
/** Tasks per page of tasks/list. */
const PAGE_SIZE = 50;

/**
 * MCP tasks (2025-11-25) over runs: a task's id is its run's id, its status is the run's, its
 * result is the run's final result, and `tasks/cancel` stops the run. A task holds no run, only
 * its id: the run is looked up each time, wherever it executes. Only real tasks come here: a
 * plain call stops at PlainCallAdapter. The tasks themselves are kept in `records`.
 */
export class RunTaskStore implements TaskStore {
  constructor(
    private readonly service: RunService,
    /** The run's result as the client reads it. */
    private readonly present: (handle: RunHandle) => Promise<CallToolResult>,
    /** What the client is told about how often to ask. */
    private readonly pollIntervalMs = 2000,
    private readonly records: TaskRecords = new MemoryTaskRecords(),
  ) {}

  async createTask(params: CreateTaskOptions): Promise<Task> {
    const taskId = (params.context?.runId as string | undefined) ?? `refused-${randomUUID()}`;
    // The same request as a task again joins its run, as long as that task is still working.
    const existing = await this.records.get(taskId);
    if (existing?.task.status === 'working') return existing.task;
    const entry: Entry = { task: this.newTask(taskId, new Date().toISOString(), clampTtl(params.ttl)) };
    await this.records.add(entry);
    return { ...entry.task };
  }

  async getTask(taskId: string): Promise<Task | null> {
    const entry = await this.entry(taskId, { follow: true });
    return entry ? { ...entry.task } : null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    const entry = await this.records.get(taskId);
    if (!entry) return;
    entry.result = result;
    await this.settle(entry, status, undefined);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const entry = await this.entry(taskId);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `No task ${taskId}`);
    if (entry.result) return entry.result;
    const handle = new RunHandle(taskId, this.service);
    // Just cancelled: the run is stopping its requests; its result says so once it has.
    if (entry.task.status === 'cancelled') await handle.wait({ deadline: Deadline.after(SETTLE_MS) }).catch(() => undefined);
    return this.present(handle).catch((error: unknown) => {
      throw new McpError(ErrorCode.InternalError, `Run ${taskId} can no longer be read: ${(error as Error).message}`);
    });
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const entry = await this.entry(taskId);
    if (!entry) return;
    if (status === 'cancelled') {
      const outcome = await this.service.cancel(taskId, 'cancelled by the client (tasks/cancel)');
      // A stop that comes as the run finishes may not take: what the run ends as is the answer.
      const state = await new RunHandle(taskId, this.service)
        .wait({ deadline: Deadline.after(outcome.stopped ? SETTLE_MS : 0) })
        .catch(() => undefined);
      const ended = state && STATUS[state.status].settled ? STATUS[state.status].task : undefined;
      if (ended && ended !== 'cancelled') {
        await this.settle(entry, ended, headline(state!));
        throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${ended}`);
      }
      if (!outcome.stopped && !ended) throw new McpError(ErrorCode.InvalidRequest, `Run ${taskId} could not be stopped: ${outcome.reason}`);
    }
    await this.settle(entry, status, statusMessage);
  }

  /** The tasks of runs, oldest first, a page at a time: the cursor is where the next page starts. */
  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await this.records.page(cursor, PAGE_SIZE);
    if (!page) throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${String(cursor).slice(0, 40)}`);
    await Promise.all(page.entries.map((entry) => this.follow(entry)));
    const next = page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
    return { tasks: page.entries.map((entry) => ({ ...entry.task })), ...next };
  }

  /**
   * A task made here, or one for a run that was not started as one (a plain call's, another
   * process's, or from before a restart), kept from now on with its run's status as just read.
   * `follow`: a task already kept takes its run's status too, unless it holds a result.
   */
  private async entry(taskId: string, { follow = false } = {}): Promise<Entry | undefined> {
    const known = await this.records.get(taskId);
    if (known) {
      if (follow && !known.result) await this.follow(known);
      return known;
    }
    const found = await this.service.watch(taskId, { waitMs: 0 });
    if (!found.ok) return undefined;
    const entry: Entry = { task: this.newTask(taskId, found.value.state.started_at, DEFAULT_TTL_MS) };
    ended(entry, found.value.state);
    await this.records.add(entry);
    return entry;
  }

  /** The task's status follows its run's; a run that can no longer be read fails its task. */
  private async follow(entry: Entry): Promise<void> {
    if (entry.task.status !== 'working') return;
    const found = await this.service.watch(entry.task.taskId, { waitMs: 0 });
    if (!found.ok) return this.settle(entry, 'failed', `the run can no longer be read: ${found.error.message}`);
    if (ended(entry, found.value.state)) await this.records.update(entry);
  }

  private settle(entry: Entry, status: Task['status'], statusMessage: string | undefined): Promise<void> {
    mark(entry, status, statusMessage);
    return this.records.update(entry);
  }

  private newTask(taskId: string, createdAt: string, ttl: number): Task {
    return { taskId, status: 'working', ttl, createdAt, lastUpdatedAt: createdAt, pollInterval: this.pollIntervalMs };
  }
}

function mark(entry: Entry, status: Task['status'], statusMessage: string | undefined): void {
  Object.assign(entry.task, { status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage ? { statusMessage } : {}) });
}

/** A run that has ended ends its task, in memory only; true when it did. */
function ended(entry: Entry, state: RunState): boolean {
  const status = STATUS[state.status].task;
  if (status === 'working') return false;
  mark(entry, status, headline(state));
  return true;
}

/** The client's ttl within bounds: a negative, absurd or missing one is never echoed back. */
function clampTtl(ttl: number | null | undefined): number {
  if (typeof ttl !== 'number' || !Number.isFinite(ttl)) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.round(ttl)));
}
