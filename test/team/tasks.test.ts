import { describe, expect, it } from 'vitest';
import { addTask, findTask, listTasks, updateTask } from '../../packages/team/src/index.js';
import { membersDatabase } from './database.js';

const {
  pool,
  ids: { ann, bob },
} = await membersDatabase('ann', 'bob');
const HOUR = 60 * 60 * 1000;
const task = (id: string, createdAt: string) => ({ taskId: id, status: 'working', createdAt, ttl: HOUR });
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();

describe('MCP tasks in Postgres', () => {
  it('lists a member’s tasks oldest first, a page at a time, every one once, and none of another member’s', async () => {
    // Two tasks made in the same millisecond are told apart by their ids.
    const ids = Array.from({ length: 7 }, (_, i) => `run-${i}`);
    for (const [i, id] of ids.entries()) await addTask(pool, ann, id, at(Math.min(i, 5)), HOUR, { task: task(id, at(Math.min(i, 5))) });
    await addTask(pool, bob, 'run-bob', at(0), HOUR, { task: task('run-bob', at(0)) });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await listTasks(pool, ann, cursor, 3))!;
      seen.push(...page.rows.map((row) => row.task.taskId as string));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(ids);
    expect((await listTasks(pool, bob, undefined, 50))!.rows.map((row) => row.task.taskId)).toEqual(['run-bob']);
  });

  it('refuses a cursor it did not give', async () => {
    for (const cursor of ['', 'abc', Buffer.from('["x","y"]').toString('base64url'), Buffer.from('[1,2]').toString('base64url')])
      expect(await listTasks(pool, ann, cursor, 3)).toBeUndefined();
  });

  it('keeps a task’s new status and result; another member’s task, and one whose time is up, are not found', async () => {
    const now = new Date().toISOString();
    await addTask(pool, ann, 'refused-1', now, HOUR, { task: task('refused-1', now) });
    const failed = { task: { ...task('refused-1', now), status: 'failed' }, result: { isError: true, content: [] } };
    await updateTask(pool, ann, 'refused-1', failed);
    expect(await findTask(pool, ann, 'refused-1')).toEqual(failed);
    expect(await findTask(pool, bob, 'refused-1')).toBeUndefined();
    await updateTask(pool, bob, 'refused-1', { task: {} });
    expect(await findTask(pool, ann, 'refused-1')).toEqual(failed);
    await addTask(pool, bob, 'gone', now, 0, { task: task('gone', now) });
    await pool.query("UPDATE plm.mcp_tasks SET expires_at = now() - interval '1 second' WHERE task_id = 'gone'");
    expect(await findTask(pool, bob, 'gone')).toBeUndefined();
    expect((await listTasks(pool, bob, undefined, 50))!.rows.map((row) => row.task.taskId)).not.toContain('gone');
  });
});
