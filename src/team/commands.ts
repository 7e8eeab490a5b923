import type pg from 'pg';
import { loadDotEnv } from '../config/dot-env.js';
import { loadTeam, TeamNotInstalled, type Team } from './load.js';

/** How long closing the pool may take once a command is done: it only says goodbye to the server. */
const CLOSE_MS = 2_000;

/**
 * Runs a team command (`users`, `usage`, `serve --http`) on the database PARALLEL_LLM_DATABASE_URL names (from
 * the environment or .env in the working folder), after applying any migration no server has
 * applied yet. A missing package or URL, or a database that does not answer, is one line on
 * stderr and exit 1; every wait on the database is bounded by the pool's limits. A command needs
 * a connection or two; a server a few, kept open (`keepIdle`), which its requests take turns on.
 */
export async function withTeamDatabase(
  command: string,
  work: (team: Team, pool: pg.Pool) => Promise<number>,
  { connections = 2, keepIdle = false }: { connections?: number; keepIdle?: boolean } = {},
): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`parallel-llm-mcp ${command}: ${message}\n`);
    return 1;
  };
  let team: Team;
  try {
    team = await loadTeam();
  } catch (error) {
    if (error instanceof TeamNotInstalled) return fail(error.message);
    throw error;
  }
  loadDotEnv(process.cwd());
  let url: string;
  try {
    url = team.databaseUrl();
  } catch (error) {
    if (error instanceof team.TeamError) return fail(error.message);
    throw error;
  }
  const pool = team.openPool(url, { max: connections, keepIdle, name: `parallel-llm-mcp ${command}` });
  try {
    return await team.reaching(url, async () => {
      await team.migrate(pool);
      return await work(team, pool);
    });
  } catch (error) {
    if (error instanceof team.TeamError) return fail(error.message);
    throw error;
  } finally {
    await Promise.race([pool.end(), new Promise((resolve) => setTimeout(resolve, CLOSE_MS).unref())]).catch(() => undefined);
  }
}
