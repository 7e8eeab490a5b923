import type { MemberUsage } from 'parallel-llm-mcp-team';
import { withTeamDatabase } from '../team/commands.js';
import { answer, commandError, readCommandLine } from './command-line.js';
import { textTable } from './text-table.js';

export const USAGE_HELP = `Usage: parallel-llm-mcp usage [--since DATE] [--json]

Team mode's usage per member, from the runs kept in the Postgres database
PARALLEL_LLM_DATABASE_URL names (see docs/team.md): runs started, and the tokens and cost in
US dollars of those that ended. Every run's member, time, models, status and cost stay in the
database's plm.runs table, the audit.

Options:
  --since DATE   only runs started since DATE: 2026-12-01 (00:00 UTC) or an ISO time
                 such as 2026-12-01T09:00:00Z; all runs when not given
  --json         print a JSON array, one {name, runs, tokens, cost_usd} per member
  -h, --help     this text
`;

/** `parallel-llm-mcp usage`: runs, tokens and cost per member. */
export async function usageCommand(args: string[]): Promise<number> {
  const line = readCommandLine('usage', args, { words: false, options: { since: 'string', json: 'boolean' } });
  if (line.kind !== 'run') return answer(line, USAGE_HELP);
  const since = line.values.since;
  const from = typeof since === 'string' ? sinceDate(since) : undefined;
  if (from === null)
    return answer(commandError('usage', `--since takes a date such as 2026-12-01 or an ISO time, not "${since}"`), USAGE_HELP);
  return withTeamDatabase('usage', async (team, pool) => {
    const rows = await team.usage(pool, from);
    process.stdout.write(line.values.json ? `${JSON.stringify(rows, null, 2)}\n` : `${table(rows)}\n`);
    return 0;
  });
}

/** A date alone is its midnight in UTC; a time must say its zone. null: not a date. */
function sinceDate(text: string): Date | null {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  if (!dateOnly && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const date = new Date(dateOnly ? `${text}T00:00:00Z` : text);
  return Number.isNaN(date.getTime()) ? null : date;
}

function table(rows: MemberUsage[]): string {
  if (rows.length === 0) return 'No members yet.';
  const header = ['NAME', 'RUNS', 'TOKENS', 'COST'];
  const cells = rows.map((row) => [row.name, String(row.runs), String(row.tokens), `$${row.cost_usd.toFixed(4)}`]);
  return textTable(header, cells);
}
