import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { byCodeUnits } from '../text/locale-free.js';

/** A task, and the result its handler stored for it: a refusal, before any run. */
export interface TaskEntry {
  task: Task;
  result?: Result;
}

/**
 * Where a server's tasks are kept, each for its ttl: in this process's memory for the stdio
 * server, or in the team database over HTTP, where every request has a server of its own and
 * any process may answer it.
 */
export interface TaskRecords {
  /** A new task, kept for its ttl from now (in place of an earlier one of its id). */
  add(entry: TaskEntry): Promise<void>;
  /** A task's new status or result. */
  update(entry: TaskEntry): Promise<void>;
  get(taskId: string): Promise<TaskEntry | undefined>;
  /** Up to `size` tasks after `cursor`, oldest first; undefined when the cursor is not one this gave. */
  page(cursor: string | undefined, size: number): Promise<{ entries: TaskEntry[]; nextCursor?: string } | undefined>;
}

/** Tasks in this process's memory; an entry is changed in place, so `update` has nothing to do. */
export class MemoryTaskRecords implements TaskRecords {
  private readonly entries = new Map<string, TaskEntry>();

  async add(entry: TaskEntry): Promise<void> {
    this.entries.set(entry.task.taskId, entry);
    this.forgetLater(entry.task.taskId, entry.task.ttl ?? 0);
  }

  async update(): Promise<void> {}

  async get(taskId: string): Promise<TaskEntry | undefined> {
    return this.entries.get(taskId);
  }

  /** The cursor is where the next page starts among the tasks, oldest first. */
  async page(cursor: string | undefined, size: number) {
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0) return undefined;
    const entries = [...this.entries.values()].sort((a, b) => byCodeUnits(a.task.createdAt, b.task.createdAt));
    const next = start + size < entries.length ? { nextCursor: String(start + size) } : {};
    return { entries: entries.slice(start, start + size), ...next };
  }

  /** Its own function, so that the timer's closure holds the id, not the entry and its result. */
  private forgetLater(taskId: string, ms: number): void {
    const entry = this.entries.get(taskId);
    setTimeout(() => this.entries.get(taskId) === entry && this.entries.delete(taskId), ms).unref();
  }
}
