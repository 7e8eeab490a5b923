import type pg from 'pg';

/** A member's MCP task as kept: the task as its client sees it, and a result stored before any run (a refusal). */
export interface TaskRow {
  task: Record<string, unknown>;
  result?: Record<string, unknown>;
}

/** A page of a member's tasks, oldest first; `nextCursor` is where the next page starts. */
export interface TaskPage {
  rows: TaskRow[];
  nextCursor?: string;
}

/**
 * Keeps a member's new task for `ttlMs` from now, in place of an earlier one of the same id, and
 * forgets the member's tasks whose time is up. Tasks are kept here rather than in one process's
 * memory, so any process lists and reads them.
 */
export async function addTask(pool: pg.Pool, memberId: string, id: string, createdAt: string, ttlMs: number, row: TaskRow): Promise<void> {
  await pool.query(
    `WITH gone AS (DELETE FROM plm.mcp_tasks WHERE member_id = $1 AND expires_at < now())
     INSERT INTO plm.mcp_tasks (member_id, task_id, created_at, expires_at, task, result)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond', $5, $6)
     ON CONFLICT (member_id, task_id) DO UPDATE
       SET created_at = excluded.created_at, expires_at = excluded.expires_at, task = excluded.task, result = excluded.result`,
    [memberId, id, createdAt, Math.max(0, Math.round(ttlMs)), JSON.stringify(row.task), json(row.result)],
  );
}

/** A new status or result of a task the member has; its time to be forgotten stays. */
export async function updateTask(pool: pg.Pool, memberId: string, id: string, row: TaskRow): Promise<void> {
  await pool.query(`UPDATE plm.mcp_tasks SET task = $3, result = $4 WHERE member_id = $1 AND task_id = $2 AND expires_at >= now()`, [
    memberId,
    id,
    JSON.stringify(row.task),
    json(row.result),
  ]);
}

/** The member's task of this id; another member's, and one whose time is up, are undefined. */
export async function findTask(pool: pg.Pool, memberId: string, id: string): Promise<TaskRow | undefined> {
  const { rows } = await pool.query<DbRow>(
    'SELECT task, result FROM plm.mcp_tasks WHERE member_id = $1 AND task_id = $2 AND expires_at >= now()',
    [memberId, id],
  );
  return rows[0] && rowOf(rows[0]);
}

/** Up to `limit` of the member's tasks after `cursor`, oldest first; undefined when the cursor is not one this gave. */
export async function listTasks(pool: pg.Pool, memberId: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
  const after = cursor === undefined ? undefined : readCursor(cursor);
  if (cursor !== undefined && !after) return undefined;
  const { rows } = await pool.query<DbRow & { at: string; task_id: string }>(
    `SELECT task, result, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, task_id FROM plm.mcp_tasks
     WHERE member_id = $1 AND expires_at >= now()
       AND ($2::timestamptz IS NULL OR (created_at, task_id COLLATE "C") > ($2::timestamptz, $3::text COLLATE "C"))
     ORDER BY created_at, task_id COLLATE "C" LIMIT $4`,
    [memberId, after?.at ?? null, after?.id ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page.map(rowOf), ...(rows.length > limit && last ? { nextCursor: writeCursor(last.at, last.task_id) } : {}) };
}

interface DbRow {
  task: Record<string, unknown>;
  result: Record<string, unknown> | null;
}

const rowOf = ({ task, result }: DbRow): TaskRow => (result ? { task, result } : { task });

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** The last task of a page (its time to the microsecond, and its id), as an opaque string. */
function writeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id]), 'utf8').toString('base64url');
}

function readCursor(cursor: string): { at: string; id: string } | undefined {
  try {
    const [at, id, ...rest] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (rest.length > 0 || typeof at !== 'string' || typeof id !== 'string') return undefined;
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(at) || id.length > 200) return undefined;
    return { at, id };
  } catch {
    return undefined;
  }
}
