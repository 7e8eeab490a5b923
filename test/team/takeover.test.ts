import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { ask, data, getRun, resultText, startTask, startTeamServers, type TeamServers } from './team-servers.js';

/** Team mode's engine in `serve --http`: a run outlives its process, and its budget is settled once. */
let team: TeamServers;

beforeAll(async () => {
  team = await startTeamServers();
}, 60_000);
afterAll(() => team?.close());

const settledRow = async (run: string) =>
  (
    await team.pool.query<{ settled: boolean; status: string; cost: number | null }>(
      'SELECT settled_at IS NOT NULL AS settled, status, cost_usd::float8 AS cost FROM plm.runs WHERE id = $1',
      [run],
    )
  ).rows[0];

describe('takeover by the engine', () => {
  it('kill -9 of the process running a call: the other takes the run over, asks only the model with no saved answer, and answers it whole', async () => {
    const { fake, pool } = team;
    // team/one's first answer to this prompt would take a minute: the run is going on when its process dies. Asked again, at once.
    let asked = 0;
    fake.on('team/one', { fromRequest: () => ({ answer: 'one says hello', delayMs: asked++ === 0 ? 60_000 : 20 }) });
    const pat = await team.member('pat');
    const three = await startServe(team.env);
    const { client } = await team.connect(three, pat.token);
    const { taskId: run, drained } = await startTask(client, 'takeover of a run');
    void drained().catch(() => undefined);
    // team/two has answered, and its answer is saved.
    await waitFor(async () => {
      const { rows } = await pool.query('SELECT 1 FROM plm.run_files WHERE run_id = $1 AND complete AND name LIKE $2', [
        run,
        'candidate-2_%',
      ]);
      return rows.length > 0;
    }, 10_000);
    const killedAt = Date.now();
    three.child.kill('SIGKILL');
    const modelsAsked = () => team.chatRequests('takeover of a run').map((request) => request.model);
    await waitFor(() => modelsAsked().filter((model) => model === 'team/one').length === 2, 30_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    const { client: elsewhere } = await team.connect(team.two, pat.token);
    await waitFor(async () => (await settledRow(run))?.settled === true, 15_000);
    const result = data(await getRun(elsewhere, run));
    expect(result).toMatchObject({ status: 'complete', run_id: run, answer: 'the synthesis' });
    // Each candidate asked once but team/one, whose answer never arrived; the synthesizer once.
    expect(modelsAsked().sort()).toEqual(['team/one', 'team/one', 'team/synth', 'team/two']);
    expect(await settledRow(run)).toMatchObject({ settled: true, status: 'complete' });
  }, 60_000);
});

describe('drain', () => {
  /** The executor id the engine of `serve` runs under, from its log. */
  const executorOf = (serve: ServeProcess) => /"executor":"([^"]+)"[^\n]*"msg":"engine: started"/.exec(serve.stderr())?.[1];
  const workflow = async (run: string) =>
    (await team.pool.query('SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1', [run])).rows[0];
  const period = async (memberId: string) =>
    (
      await team.pool.query<{ spent: number; reserved: number }>(
        'SELECT spent_usd::float8 AS spent, reserved_usd::float8 AS reserved FROM plm.budget_periods WHERE member_id = $1',
        [memberId],
      )
    ).rows[0];

  it('SIGTERM as the call is asked upstream: the process exits once the run has ended, answered and settled, here and once', async () => {
    const three = await startServe(team.env);
    const kim = await team.member('kim', 5);
    const { client } = await team.connect(three, kim.token);
    // The signal comes the moment team/one is asked; its answer takes a second and a half.
    team.fake.on('team/one', {
      fromRequest: (request) => {
        if (JSON.stringify(request.body.messages).includes('drain kim')) three.child.kill('SIGTERM');
        return { answer: 'one says late', delayMs: 1_500 };
      },
    });
    const result = data(await ask(client, { prompt: 'drain kim' }));
    expect(result).toMatchObject({ status: 'complete', answer: 'the synthesis' });
    expect(await three.exited).toBe(0);
    // As it exited, the run's workflow had ended under its own executor (none took it over) and its cost was settled.
    expect(await workflow(result.run_id)).toEqual({ status: 'SUCCESS', executor_id: executorOf(three) });
    expect(await settledRow(result.run_id)).toMatchObject({ settled: true, status: 'complete' });
    expect(await period(kim.id)).toEqual({ spent: expect.closeTo(result.totals.cost!, 6), reserved: 0 });
    expect(
      team
        .chatRequests('drain kim')
        .map((request) => request.model)
        .sort(),
    ).toEqual(['team/one', 'team/synth', 'team/two']);
  }, 40_000);

  it('a call taken in before SIGTERM that had not begun its run by then is refused before any request, and the process exits', async () => {
    const three = await startServe(team.env);
    const lee = await team.member('lee', 5);
    const { client } = await team.connect(three, lee.token);
    // The call waits for its session's record while the signal comes: it is past the door, and has started nothing.
    const holder = await team.pool.connect();
    let asking: ReturnType<typeof ask>;
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE plm.mcp_sessions IN ACCESS EXCLUSIVE MODE');
      asking = ask(client, { prompt: 'drain lee' });
      await waitFor(async () => {
        const { rows } = await team.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%plm.mcp_sessions%' AND pid <> pg_backend_pid()",
        );
        return rows.length > 0;
      }, 10_000);
      three.child.kill('SIGTERM');
      await waitFor(() => three.stderr().includes('taking no new call'), 10_000);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const refused = await asking!;
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(
      'Refused before any request: this server is stopping and takes no new call; call again (another process serves it).',
    );
    expect(await three.exited).toBe(0);
    expect(team.chatRequests('drain lee')).toEqual([]);
    expect((await team.pool.query('SELECT 1 FROM plm.runs WHERE member_id = $1', [lee.id])).rowCount).toBe(0);
  }, 40_000);
});
