import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type pg from 'pg';
import type { TaskEntry, TaskRecords } from '../mcp/task-records.js';
import type { Team } from './load.js';
import type { Member } from './run-storage.js';

/**
 * One member's MCP tasks in the team database: every process lists and reads them, and no other
 * member sees them. The team package keeps them as JSON, knowing nothing of their shape.
 */
export function memberTaskRecords(team: Team, pool: pg.Pool, member: Member): TaskRecords {
  const row = ({ task, result }: TaskEntry) => ({ task: { ...task }, ...(result ? { result } : {}) });
  const entry = ({ task, result }: { task: Record<string, unknown>; result?: Record<string, unknown> }): TaskEntry => ({
    task: task as Task,
    ...(result ? { result: result as Result } : {}),
  });
  return {
    add: (added) => team.addTask(pool, member.id, added.task.taskId, added.task.createdAt, added.task.ttl ?? 0, row(added)),
    update: (changed) => team.updateTask(pool, member.id, changed.task.taskId, row(changed)),
    get: async (taskId) => {
      const found = await team.findTask(pool, member.id, taskId);
      return found && entry(found);
    },
    page: async (cursor, size) => {
      const page = await team.listTasks(pool, member.id, cursor, size);
      return page && { entries: page.rows.map(entry), ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    },
  };
}
