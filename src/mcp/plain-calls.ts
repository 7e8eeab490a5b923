import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { ErrorCode, McpError, type Request, type RequestId, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';

interface PlainCall {
  task: Task;
  result?: Result;
}

/**
 * The SDK runs a plain call to a tool that can also run as a task (process_prompt) through the
 * task store: it creates a task, looks at it, and reads its result. This store in front of the
 * task store answers those steps for a plain call itself, handing its result over once, so that
 * only real tasks (a client asked for one) reach `tasks`.
 */
export class PlainCallAdapter implements TaskStore {
  private readonly calls = new Map<string, PlainCall>();

  constructor(private readonly tasks: TaskStore) {}

  async createTask(params: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    if ((request.params as { task?: unknown } | undefined)?.task !== undefined)
      return this.tasks.createTask(params, requestId, request, sessionId);
    const now = new Date().toISOString();
    const task: Task = { taskId: `call-${randomUUID()}`, status: 'working', ttl: null, createdAt: now, lastUpdatedAt: now };
    this.calls.set(task.taskId, { task });
    return { ...task };
  }

  /** Whether the task stands for a plain call, whose result its handler waits for and hands over here. */
  isPlain(taskId: string): boolean {
    return this.calls.has(taskId);
  }

  /** A plain call that failed before it had a result. */
  forget(taskId: string): void {
    this.calls.delete(taskId);
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const call = this.calls.get(taskId);
    return call ? { ...call.task } : this.tasks.getTask(taskId, sessionId);
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    const call = this.calls.get(taskId);
    if (!call) return this.tasks.storeTaskResult(taskId, status, result, sessionId);
    call.result = result;
    Object.assign(call.task, { status, lastUpdatedAt: new Date().toISOString() });
  }

  /** A plain call's result is read once, by the SDK, just after its handler returns: then it is gone. */
  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const call = this.calls.get(taskId);
    if (!call) return this.tasks.getTaskResult(taskId, sessionId);
    this.calls.delete(taskId);
    if (!call.result) throw new McpError(ErrorCode.InvalidParams, `No result for ${taskId}`);
    return call.result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    const call = this.calls.get(taskId);
    if (!call) return this.tasks.updateTaskStatus(taskId, status, statusMessage, sessionId);
    Object.assign(call.task, { status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage ? { statusMessage } : {}) });
  }

  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.tasks.listTasks(cursor, sessionId);
  }
}
