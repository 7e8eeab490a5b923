import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** What `initialize` negotiated, as a session kept elsewhere (a database) remembers it. */
export interface SessionStart {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
}

/** The SDK's own handling of `initialize`: it records the client's capabilities and name, and asks nothing else. */
interface Initializing {
  _oninitialize(request: InitializeRequest): Promise<unknown>;
}

/**
 * Makes a new server serve a session that `initialize` opened earlier, perhaps in another
 * process: the client's capabilities and name are set as that `initialize` set them, and what
 * waits for `notifications/initialized` (the MCP App's tools) is switched on. Over HTTP each
 * request gets a server of its own, so a session lives in the database rather than in one.
 * The SDK has no public setter for these, so its own initialize handler is called.
 */
export function continueSession(server: McpServer, session: SessionStart): void {
  const request = {
    method: 'initialize',
    params: { protocolVersion: session.protocolVersion, capabilities: session.clientCapabilities, clientInfo: session.clientInfo },
  } as InitializeRequest;
  void (server.server as unknown as Initializing)._oninitialize(request);
  server.server.oninitialized?.();
}
