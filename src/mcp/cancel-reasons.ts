/**
 * The cancellations that end a call, not its run: a client sends `notifications/cancelled` when
 * its own time limit passes, and that is no request to stop a paid run (SPEC §8). Any other
 * reason is the user's stop. The list, as the README documents it:
 * - the MCP SDKs: "McpError: MCP error -32001: Request timed out" (the RequestTimeout code);
 * - other clients: "timed out", "timed out after 60.0s", "timeout";
 * - Codex at its tool timeout: "MCP request cancelled by caller".
 */
const CLIENT_TIMEOUTS = [/-32001/, /timed? ?out|timeout/i, /MCP request cancelled by caller/i];

export function isClientTimeout(reason: unknown): boolean {
  const text = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason ?? '');
  return CLIENT_TIMEOUTS.some((pattern) => pattern.test(text));
}
