import type { Layout } from '../present/result.js';

/**
 * What we know of each MCP client, by the `clientInfo.name` it sends in `initialize`: how long
 * it waits for a tool call, and which side of a result its model reads. Sources and reasoning
 * are in docs/long-runs.md's client table; keep the two in step. Each budget stays below the
 * client's own limit.
 */
interface ClientProfile {
  match: RegExp;
  budgetMs: number;
  layout: Layout;
}

const CLIENTS: ClientProfile[] = [
  // Claude Desktop: reports of ~60 s, later builds ~4 min; its model reads the text content.
  { match: /^claude-ai$/i, budgetMs: 55_000, layout: 'content' },
  { match: /^local-agent-mode-/i, budgetMs: 55_000, layout: 'both' },
  // Claude Code: MCP_TOOL_TIMEOUT, effectively unlimited by default, and progress resets its idle timer; its model reads structuredContent.
  { match: /^claude-code$/i, budgetMs: 600_000, layout: 'structured_content' },
  // Cursor has been seen cancelling tool calls at 5 minutes.
  { match: /^cursor/i, budgetMs: 270_000, layout: 'both' },
  // VS Code sets no timer and runs task-capable tools as tasks; its model reads structuredContent.
  { match: /^(visual studio code|vscodium|code - oss)/i, budgetMs: 270_000, layout: 'structured_content' },
  // Codex: `tool_timeout_sec`, 300 s by default; its model reads structuredContent.
  { match: /^codex/i, budgetMs: 270_000, layout: 'structured_content' },
  // Gemini CLI: 600 s by default (MCP_DEFAULT_TIMEOUT_MSEC), progress ignored.
  { match: /^gemini-cli/i, budgetMs: 540_000, layout: 'content' },
  // Goose: 300 s per extension by default.
  { match: /^goose/i, budgetMs: 270_000, layout: 'content' },
  { match: /^inspector-tui$/i, budgetMs: 270_000, layout: 'both' },
  // The Inspector's web client (60 s in all) and CLI (60 s).
  { match: /^(mcp-inspector|inspector-client|inspector-cli)$/i, budgetMs: 55_000, layout: 'both' },
  // 60 s by default, progress ignored.
  { match: /^(cline|@cline\/core|zed|continue-client|windsurf)/i, budgetMs: 55_000, layout: 'content' },
];

/** For clients we do not know: below the MCP SDK's default 60 s request timeout. A short budget loses nothing: the run goes on. */
export const FALLBACK_BUDGET_MS = 50_000;

export interface ClientChoice {
  budgetMs: number;
  layout: Layout;
  /** Why: for the log. */
  source: string;
}

export function forClient(clientName: string | undefined, budgetOverrideMs?: number): ClientChoice {
  const known = clientName ? CLIENTS.find((entry) => entry.match.test(clientName)) : undefined;
  const layout = known?.layout ?? 'both';
  if (budgetOverrideMs !== undefined) return { budgetMs: budgetOverrideMs, layout, source: 'PARALLEL_LLM_BUDGET_MS' };
  if (known) return { budgetMs: known.budgetMs, layout, source: `client "${clientName}"` };
  return { budgetMs: FALLBACK_BUDGET_MS, layout, source: clientName ? `unknown client "${clientName}"` : 'no client name' };
}
