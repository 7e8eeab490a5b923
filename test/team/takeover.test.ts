import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { startServe } from './serve-process.js';
import { ask, data, getRun, startTask, startTeamServers, type TeamServers } from './team-servers.js';

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
  it('SIGTERM: the run going on finishes and is answered before the process exits, and its cost is settled once', async () => {
    const three = await startServe(team.env);
    const kim = await team.member('kim');
    const { client } = await team.connect(three, kim.token);
    const asking = ask(client, { prompt: 'drain kim, slow' });
    await waitFor(() => team.chatRequests('drain kim').length > 0, 10_000);
    three.child.kill('SIGTERM');
    const result = data(await asking);
    expect(result).toMatchObject({ status: 'complete' });
    expect(await three.stop()).toBe(0);
    // Settled by the draining process, or, when its workflow was still queued, by the process that took the workflow over.
    await waitFor(async () => (await settledRow(result.run_id))?.settled === true, 15_000);
    expect(await settledRow(result.run_id)).toMatchObject({ settled: true, status: 'complete' });
  }, 40_000);
});
