import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, within } from '../support/wait.js';
import { data, resultText, startTask, startTeamServers, type TeamServers } from './team-servers.js';

/**
 * What a member's session keeps between requests when each may reach another process: the
 * member's tasks, and the time limit its client showed. Two serve --http processes, one database.
 */
let team: TeamServers;
const tasks = { capabilities: { tasks: {} } };

beforeAll(async () => {
  team = await startTeamServers();
}, 60_000);
afterAll(() => team?.close());

describe('tasks/list over HTTP', () => {
  it('lists a member’s tasks on either process, whichever process started them, and never another member’s', async () => {
    const { one, two } = team;
    const ann = await team.member('ann-list');
    const bob = await team.member('bob-list');
    const { client: onOne, transport } = await team.connect(one, ann.token, tasks);
    const { client: onTwo } = await team.connect(two, ann.token, { sessionId: transport.sessionId!, ...tasks });
    const { client: bobs } = await team.connect(two, bob.token, tasks);
    const started = [await startTask(onOne, 'listed on one'), await startTask(onTwo, 'listed on two')];
    const bobsTask = await startTask(bobs, 'listed for bob');
    const annsIds = started.map((task) => task.taskId).sort();

    for (const client of [onOne, onTwo]) {
      const { tasks: listed, nextCursor } = await within(10_000, client.experimental.tasks.listTasks());
      expect(listed.map((task) => task.taskId).sort()).toEqual(annsIds);
      expect(nextCursor).toBeUndefined();
    }
    expect((await bobs.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toEqual([bobsTask.taskId]);

    await Promise.all([...started, bobsTask].map((task) => task.drained()));
    const ended = (await onTwo.experimental.tasks.listTasks()).tasks;
    expect(ended.map((task) => task.status)).toEqual(['completed', 'completed']);
  });

  it('answers for a task refused before any run from the other process: failed, with the refusal as its result', async () => {
    const { one, two } = team;
    const kim = await team.member('kim-refused', 0);
    const { client, transport } = await team.connect(one, kim.token, tasks);
    const { taskId, drained } = await startTask(client, 'refused as a task');
    const { client: other } = await team.connect(two, kim.token, { sessionId: transport.sessionId!, ...tasks });
    expect(await other.experimental.tasks.getTask(taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringMatching(/budget/i),
    });
    const result = (await other.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/budget/i);
    expect((await other.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toEqual([taskId]);
    await drained();
  });
});

describe('the client’s time limit', () => {
  it('is learned from a call the client gave up on, and kept: the next call, on the other process, answers within it', async () => {
    const { one, two, pool } = team;
    const ann = await team.member('ann-limit');
    const { client, transport } = await team.connect(one, ann.token);
    const call = { name: 'process_prompt', arguments: { prompt: 'a stoppable limit' } };
    await expect(client.callTool(call, undefined, { timeout: 1500 })).rejects.toThrow(/timed out/);
    const learned = async () =>
      (await pool.query<{ ms: number | null }>('SELECT client_limit_ms AS ms FROM plm.mcp_sessions WHERE id = $1', [transport.sessionId]))
        .rows[0]?.ms ?? null;
    // The stop reaches the call's process through the database; what it learns is kept there.
    await waitFor(async () => (await learned()) !== null, 10_000);
    const limitMs = (await learned())!;
    // What is learned is when the stop arrived: the client's 1.5 s, less the call's own trip, plus the stop's.
    expect(limitMs).toBeGreaterThan(1000);
    expect(limitMs).toBeLessThan(3000);

    const { client: other } = await team.connect(two, ann.token, { sessionId: transport.sessionId! });
    const again = (await other.callTool(call, undefined, { timeout: limitMs })) as CallToolResult;
    expect(data(again)).toMatchObject({ status: 'running', joined: 'attached' });
    expect(data(again).budget_ms).toBeLessThan(limitMs);

    const aborted = team.fake.aborted;
    expect((await within(10_000, other.experimental.tasks.cancelTask(data(again).run_id))).status).toBe('cancelled');
    await waitFor(() => team.fake.aborted > aborted, 10_000);
  });
});
