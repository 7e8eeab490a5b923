import type pg from 'pg';
import type { MemberListing, Period } from 'parallel-llm-mcp-team';
import { withTeamDatabase } from '../team/commands.js';
import type { Team } from '../team/load.js';
import { answer, commandError, readCommandLine, type CommandLine, type OptionTypes } from './command-line.js';
import { textTable } from './text-table.js';

export const USERS_HELP = `Usage: parallel-llm-mcp users add NAME [--budget-usd N] [--period day|week|month] [--json]
       parallel-llm-mcp users list [--json]
       parallel-llm-mcp users set NAME --budget-usd N|none [--period day|week|month] [--json]
       parallel-llm-mcp users revoke NAME [--json]

Team mode's members, in the Postgres database PARALLEL_LLM_DATABASE_URL names (see
docs/team.md; needs the parallel-llm-mcp-team package). add prints the member's new bearer
token once: only its hash is stored. A budget is US dollars per calendar period in UTC (a day
from 00:00, a week from Monday, a month from the 1st; month by default); none means no limit.
list shows each member's budget, what settled runs spent this period, what running runs hold
reserved, and the runs started this period. revoke stops a token for good; the member's runs
stay in the audit.

Exit codes: 0 done, 1 refused or the database unreachable, 2 a bad argument.

Options:
  --budget-usd N   the member's budget per period, in US dollars (set: none removes it)
  --period P       day, week or month
  --json           print the result as JSON
  -h, --help       this text
`;

type Action = (team: Team, pool: pg.Pool, name: string, values: Record<string, string | true>) => Promise<string>;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const money = (usd: number) => `$${usd.toFixed(2)}`;
const budgetWords = (member: Pick<MemberListing, 'budget_usd' | 'period'>) =>
  member.budget_usd === null ? 'no budget' : `a budget of ${money(member.budget_usd)} a ${member.period}`;

const ACTIONS: Record<string, { options: OptionTypes; named: boolean; run: Action }> = {
  add: {
    options: { 'budget-usd': 'string', period: 'string', json: 'boolean' },
    named: true,
    async run(team, pool, name, values) {
      const budgetUsd = values['budget-usd'] === undefined ? null : Number(values['budget-usd']);
      const added = await team.addMember(pool, { name, budgetUsd, period: values.period as Period | undefined });
      if (values.json) return json(added);
      return `Added ${name}, with ${budgetWords({ budget_usd: budgetUsd, period: (values.period as Period) ?? 'month' })}. Their token, shown this once (give it to them; only its hash is kept):\n${added.token}\n`;
    },
  },
  list: {
    options: { json: 'boolean' },
    named: false,
    async run(team, pool, _name, values) {
      const members = await team.listMembers(pool);
      if (values.json) return json(members);
      return members.length === 0 ? 'No members yet: add one with parallel-llm-mcp users add NAME.\n' : `${table(members)}\n`;
    },
  },
  set: {
    options: { 'budget-usd': 'string', period: 'string', json: 'boolean' },
    named: true,
    async run(team, pool, name, values) {
      const budget = values['budget-usd'] as string;
      const member = await team.setBudget(pool, name, {
        budgetUsd: budget === 'none' ? null : Number(budget),
        period: values.period as Period | undefined,
      });
      return values.json ? json(member) : `${name} now has ${budgetWords(member)}.\n`;
    },
  },
  revoke: {
    options: { json: 'boolean' },
    named: true,
    async run(team, pool, name, values) {
      const revoked = await team.revokeMember(pool, name);
      return values.json ? json(revoked) : `Revoked ${name}: their token no longer works (within 10 s on a running server).\n`;
    },
  },
};

/** `parallel-llm-mcp users add|list|set|revoke`: team mode's members and their tokens and budgets. */
export async function usersCommand(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  const action = verb === undefined ? undefined : ACTIONS[verb];
  if (!action) {
    if (verb === undefined || verb === '--help' || verb === '-h') return answer({ kind: 'help' }, USERS_HELP);
    return answer(commandError('users', `unknown action "${verb}": add, list, set or revoke`), USERS_HELP);
  }
  const line = checked(verb, action.named, readCommandLine(`users ${verb}`, rest, { words: action.named, options: action.options }));
  if (line.kind !== 'run') return answer(line, USERS_HELP);
  return withTeamDatabase('users', async (team, pool) => {
    process.stdout.write(await action.run(team, pool, line.words[0] ?? '', line.values));
    return 0;
  });
}

/** The command line with what the database need not see refused first: the name's count, the budget's and period's form. */
function checked(verb: string, named: boolean, line: CommandLine): CommandLine {
  if (line.kind !== 'run') return line;
  const error = (message: string) => commandError(`users ${verb}`, message);
  if (named && line.words.length !== 1) return error(line.words.length === 0 ? 'needs a NAME' : `takes one NAME, not ${line.words.length}`);
  const budget = line.values['budget-usd'];
  if (verb === 'set' && budget === undefined) return error('needs --budget-usd N (or none)');
  if (typeof budget === 'string' && !(verb === 'set' && budget === 'none') && !/^\d+(\.\d+)?$/.test(budget))
    return error(`--budget-usd takes a number of US dollars${verb === 'set' ? ' or none' : ''}, not "${budget}"`);
  const period = line.values.period;
  if (typeof period === 'string' && !['day', 'week', 'month'].includes(period))
    return error(`--period takes day, week or month, not "${period}"`);
  return line;
}

function table(members: MemberListing[]): string {
  const header = ['NAME', 'BUDGET', 'PERIOD', 'SPENT', 'RESERVED', 'RUNS'];
  const rows = members.map((member) => [
    member.name,
    member.budget_usd === null ? 'none' : money(member.budget_usd),
    member.period,
    money(member.spent_usd),
    money(member.reserved_usd),
    String(member.runs),
  ]);
  return textTable(header, rows);
}
