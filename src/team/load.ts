/** Team mode's package: its Postgres side, installed beside this one only by those who run team mode. */
export type Team = typeof import('parallel-llm-mcp-team');

const PACKAGE = 'parallel-llm-mcp-team';

/** Why a team command cannot run: the package is not installed. */
export class TeamNotInstalled extends Error {
  override name = 'TeamNotInstalled';
}

/**
 * Loads the team package, or says how to install it. A variable specifier keeps the bundler
 * from looking for it at build time; scripts/build.ts marks it external as well.
 */
export async function loadTeam(specifier: string = PACKAGE): Promise<Team> {
  try {
    return (await import(specifier)) as Team;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes(`'${specifier}'`)) throw error;
    throw new TeamNotInstalled(
      `team mode needs the ${PACKAGE} package beside this one: npm install -g ${PACKAGE} (with parallel-llm-mcp installed globally), or npx -p parallel-llm-mcp -p ${PACKAGE} parallel-llm-mcp …`,
    );
  }
}
