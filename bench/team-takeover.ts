/**
 * Team mode's takeover: how long from a process's kill -9 to its run going on in another
 * process. Each round starts a throwaway Postgres database, two engine processes (the test
 * engine of test/team/engine-child.ts, whose steps are held by the bench), starts a run on the
 * first, kills it while a step is running, and times until the second starts that step again.
 * `node --import tsx bench/team-takeover.ts [ROUNDS]` (5 by default); needs Debian's postgresql
 * (as the team tests do). Saves bench/results/team-takeover.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { bundleEngineChild, Gates, launchEngineProcess, untilStarted, type EngineProcess } from '../test/team/engine-driver.js';
import { startPostgres } from '../test/team/postgres.js';
import { median, report, round } from './lib.js';

const rounds = Number(process.argv[2] ?? 5);
const postgres = await startPostgres();
const scriptDir = await mkdtemp(path.join(os.tmpdir(), 'plm-takeover-'));
const engines: EngineProcess[] = [];
try {
  const script = await bundleEngineChild(scriptDir);
  const takeovers: number[] = [];
  for (let index = 0; index < rounds; index++) {
    const url = await freshDatabase(postgres.url);
    const gates = await Gates.hold(url, [['bench', 0]]);
    try {
      const first = await untilStarted(launchEngineProcess(script, url));
      const second = await untilStarted(launchEngineProcess(script, url));
      engines.push(first, second);
      first.send({ start: 'bench', steps: 1 });
      await first.stepStarted('bench', 0);
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      const again = await second.stepStarted('bench', 0, 60_000);
      takeovers.push(again.at - killedAt);
      process.stderr.write(`round ${index + 1}: ${again.at - killedAt} ms\n`);
      second.child.kill('SIGKILL');
      await Promise.all([first.exited, second.exited]);
    } finally {
      await gates.close();
    }
  }
  await report('team-takeover', {
    rounds,
    takeoverMs: { median: median(takeovers), min: Math.min(...takeovers), max: Math.max(...takeovers), each: takeovers },
    target: 'median < 30 000 ms',
    met: median(takeovers) < 30_000,
    seconds: round(median(takeovers) / 1000, 2),
  });
} finally {
  for (const engine of engines) if (engine.child.exitCode === null && engine.child.signalCode === null) engine.child.kill('SIGKILL');
  await postgres.remove();
  await rm(scriptDir, { recursive: true, force: true });
}

/** A new database in the cluster, so each round starts with no peers and no runs. */
async function freshDatabase(admin: string): Promise<string> {
  const name = `takeover_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
