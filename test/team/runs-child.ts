/**
 * For test/team/pg-runs.test.ts: a team process that runs a request on the Postgres run store and
 * keeps running until it is killed, as a server on another machine would.
 *
 *   node --import tsx test/team/runs-child.ts <database-url> <member-id> <fake-url> <prefix>
 *
 * stdout: the run's id once it has started.
 */
import { openPool, PgRunStorage } from '../../packages/team/src/index.js';
import { teamRuns } from './team-runs.js';

async function main(url: string, memberId: string, fakeUrl: string, prefix: string): Promise<void> {
  const store = new PgRunStorage(openPool(url, { max: 4 }), { id: memberId, name: 'ann' });
  const { runs, request } = teamRuns(store, fakeUrl, prefix);
  const started = await runs.start(request);
  if (!('run' in started) || !('live' in started.run)) throw new Error(`no run started: ${JSON.stringify(started)}`);
  process.stdout.write(`${started.run.live.id}\n`);
  process.stdin.resume().on('end', () => process.exit(0));
}

const [url, memberId, fakeUrl, prefix] = process.argv.slice(2);
main(url!, memberId!, fakeUrl!, prefix!).catch((error: unknown) => {
  process.stderr.write(`runs-child failed: ${String(error)}\n`);
  process.exit(2);
});
