import type { ServerResponse } from 'node:http';

/** What a call gets while the database does not answer: it cannot be checked or recorded, so it is not taken. */
export const DATABASE_DOWN = 'the team database does not answer, so this request cannot be served now; try again in a few seconds';

/** What a call gets from a process that is stopping: another process of the team serves it. */
export const STOPPING = 'this server is stopping and takes no new call; call again (another process serves it)';

/** A JSON-RPC error with no id, as the SDK's transport sends for a request it refuses. */
export const rpcError = (message: string, code = -32000) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}
