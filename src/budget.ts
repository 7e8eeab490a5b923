/**
 * How long a call may take, by what the client sends as `clientInfo.name` in `initialize`.
 * Sources and reasoning are in the README's "Time budget" table; keep the two in step.
 */
interface ClientBudget {
  match: RegExp;
  budgetMs: number;
}

const CLIENT_BUDGETS: ClientBudget[] = [
  // Claude Desktop gives up on a tool call after about 60 s whatever the server does.
  { match: /^claude-ai$/i, budgetMs: 55_000 },
  // Claude Code: MCP_TOOL_TIMEOUT is ~28 h by default and progress resets its idle timer.
  { match: /^claude-code$/i, budgetMs: 600_000 },
  // Cursor has been seen cancelling tool calls at 5 minutes.
  { match: /^cursor/i, budgetMs: 270_000 },
  // VS Code sets no timer of its own; older releases cancelled at 5 minutes.
  { match: /^(visual studio code|vscodium|code - oss)/i, budgetMs: 270_000 },
  // Inspector: 60 s total once progress arrives (MCP_REQUEST_MAX_TOTAL_TIMEOUT).
  { match: /^(mcp-inspector|inspector-client|inspector-cli)$/i, budgetMs: 55_000 },
  // Cline: 60 s per call by default, progress ignored.
  { match: /^cline$/i, budgetMs: 55_000 },
];

/** For clients we do not know: generous, for clients that honour progress. */
export const FALLBACK_BUDGET_MS = 300_000;

export function budgetForClient(clientName: string | undefined): { budgetMs: number; source: string } {
  const known = clientName ? CLIENT_BUDGETS.find((entry) => entry.match.test(clientName)) : undefined;
  if (known) return { budgetMs: known.budgetMs, source: `client "${clientName}"` };
  return { budgetMs: FALLBACK_BUDGET_MS, source: clientName ? `unknown client "${clientName}"` : 'no client name' };
}

/**
 * How much of a call's budget to keep for synthesis: the fan-out ends when only this is
 * left. Until a synthesizer has been seen, 40% of the budget; then what it has taken in
 * this process, with a margin, so a slow synthesizer gets the time it really needs. The
 * reserve stays between a quarter and four fifths of the budget, so neither phase starves.
 */
export class SynthesisReserve {
  private readonly learnedMs = new Map<string, number>();

  reserveMs(model: string, budgetMs: number): number {
    const learned = this.learnedMs.get(model);
    const wanted = learned === undefined ? budgetMs * 0.4 : learned * 1.25;
    return Math.round(Math.min(budgetMs * 0.8, Math.max(budgetMs * 0.25, wanted)));
  }

  /** After a synthesis: how long it took, or, when it ran out of time, at least how long it needs. */
  record(model: string, ms: number, finished: boolean): void {
    const needed = finished ? ms : ms * 1.5;
    const previous = this.learnedMs.get(model);
    this.learnedMs.set(model, previous === undefined ? needed : (previous + needed) / 2);
  }
}
