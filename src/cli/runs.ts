import type { Config } from '../config/config.js';
import { seconds } from '../present/words.js';
import type { Listing } from '../run/service.js';
import { answer, readCommandLine } from './command-line.js';
import { RUNS_HELP } from './help.js';
import { existingRuns } from './existing-runs.js';

const LISTED = 20;

/** `parallel-llm-mcp runs`: the run host, if one is running, and the newest runs with how each stands. */
export async function runsCommand(args: string[], readConfig: () => Config): Promise<number> {
  const line = readCommandLine('runs', args, { words: false });
  if (line.kind !== 'run') return answer(line, RUNS_HELP);
  const service = existingRuns(readConfig());
  try {
    const info = await service.hostInfo();
    process.stdout.write(
      info
        ? `Run host: pid ${info.pid}, version ${info.version}, up since ${info.started_at}, ${info.running} running, ${info.clients} connected counting this command (socket ${info.socket}, log ${info.log})\n\n`
        : 'No run host is running (the first MCP server or ask that needs one starts it).\n\n',
    );
    const runs = await service.list(LISTED);
    process.stdout.write(runs.length === 0 ? 'No runs yet.\n' : `${table(runs)}\n`);
    return 0;
  } finally {
    await service.close();
  }
}

function table(runs: Listing[]): string {
  const rows = runs.map(({ id, state }) => {
    if (!state) return [id, '?', '', '', '', '(its journal is too large to list)'];
    const answered = state.candidates.filter((candidate) => candidate.status === 'answered').length;
    const elapsed = state.elapsed_ms ?? (state.status === 'running' ? Date.now() - Date.parse(state.started_at) : undefined);
    const cost = state.totals.cost === undefined ? '' : `$${state.totals.cost.toFixed(4)}`;
    return [id, state.status, seconds(elapsed), `${answered}/${state.candidates.length}`, cost, state.title];
  });
  const header = ['RUN', 'STATUS', 'ELAPSED', 'ANSWERED', 'COST', 'PROMPT'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '))
    .join('\n');
}
