import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DEFAULT_MAX_REQUEST_BODY_SIZE, MAX_BATCH_SIZE, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isInitializeRequest,
  isJSONRPCNotification,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type pg from 'pg';
import { continueSession, type SessionStart } from '../mcp/continued-session.js';
import type { SessionMemory } from '../mcp/session.js';
import type { Team } from '../team/load.js';
import { readBody } from './body.js';
import type { Member } from '../team/run-storage.js';
import type { Stops } from './stops.js';
import { DATABASE_DOWN, rpcError, send } from './replies.js';

export interface McpEndpointDeps {
  team: Team;
  pool: pg.Pool;
  /** A new MCP server for one request of `member`'s, over their runs, with what the session has learned of its client. */
  serverFor(member: Member, session: SessionMemory): McpServer;
  /** How a client's stop of a call reaches the process where the call waits. */
  stops: Stops;
  logger: Logger;
}

/**
 * MCP over Streamable HTTP (2025-11-25) with its sessions in Postgres, so that any process
 * serves any request of any session: `initialize` records the session and answers its id;
 * every later request, wherever it lands, is served by a new server and a stateless SDK
 * transport, set up from the session's stored capabilities. The SDK's transport answers what
 * it defines (406, 415, 413, a malformed body's 400) before anything is recorded or run.
 */
export function mcpEndpoint({ team, pool, serverFor, stops, logger }: McpEndpointDeps) {
  /** This process's requests in progress, per session: a cancellation sent in another request reaches the one it names. */
  const live = new Map<string, Set<StreamableHTTPServerTransport>>();
  stops.subscribe((notice) => {
    if (notice.kind !== 'call') return;
    const cancelled = {
      jsonrpc: '2.0' as const,
      method: 'notifications/cancelled',
      params: { requestId: notice.requestId, reason: notice.reason },
    };
    for (const transport of live.get(notice.session) ?? []) transport.onmessage?.(cancelled);
  });

  /** Runs `work`; a database that does not answer becomes 503 with Retry-After, never a hang or a 500. */
  const withDatabase = async <T>(res: ServerResponse, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (!team.isDown(error)) throw error;
      send(res, 503, rpcError(DATABASE_DOWN), { 'Retry-After': '5' });
      return undefined;
    }
  };

  async function post(req: IncomingMessage, res: ServerResponse, member: Member): Promise<void> {
    const accept = req.headers.accept ?? '';
    const declared = Number(req.headers['content-length']);
    if (!accept.includes('application/json') || !accept.includes('text/event-stream') || !isJsonContentType(req.headers['content-type']))
      return refusedByTransport(req, res);
    if (declared > DEFAULT_MAX_REQUEST_BODY_SIZE) return refusedByTransport(req, res);
    const body = await readBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
    if (!body.ok) {
      const message =
        body.reason === 'too_large' ? requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE) : 'the request body did not arrive';
      return send(res, body.reason === 'too_large' ? 413 : 400, rpcError(message), { Connection: 'close' });
    }
    const parsed = parseJson(body.text);
    const messages = parsed === undefined ? undefined : jsonRpcMessages(parsed);
    // Not JSON-RPC: the transport says so, with its status.
    if (!messages) return refusedByTransport(req, res, parsed ?? body.text);
    const initialize = messages.find((message) => isInitializeRequest(message)) as InitializeRequest | undefined;
    if (initialize) {
      if (messages.length > 1) return refusedByTransport(req, res, parsed);
      const { protocolVersion: asked, capabilities, clientInfo } = initialize.params;
      const start: SessionStart = {
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
        clientCapabilities: capabilities as Record<string, unknown>,
        clientInfo: clientInfo as unknown as Record<string, unknown>,
      };
      const id = await withDatabase(res, () => team.openSession(pool, member.id, start));
      if (id === undefined) return;
      logger.info({ member: member.name, session: id, client: clientInfo.name }, 'an MCP session opened');
      return serve(req, res, member, parsed, { id, start });
    }
    const sessionId = sessionHeader(req);
    if (!sessionId) return send(res, 400, rpcError('Bad Request: Mcp-Session-Id header is required'));
    const session = await withDatabase(res, () => team.findSession(pool, member.id, sessionId));
    if (res.headersSent) return;
    if (!session) return send(res, 404, rpcError('Session not found', -32001));
    if (messages.every(isJSONRPCNotification)) passOnCancellations(sessionId, messages);
    return serve(req, res, member, parsed, { id: sessionId, start: session, continued: true, limitMs: session.clientLimitMs });
  }

  /** One request, served by a server and a transport of its own, both closed when its reply ends. */
  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    member: Member,
    parsed: unknown,
    session: { id: string; start: SessionStart; continued?: boolean; limitMs?: number },
  ): Promise<void> {
    const server = serverFor(member, { limitMs: session.limitMs, learned: (ms) => learned(member, session.id, ms) });
    // The session id is sent back once, by initialize's reply; later requests need no checking by the transport: it is done here.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: session.continued ? undefined : () => session.id });
    if (session.continued) continueSession(server, session.start);
    transport.onerror = (error) => logger.debug({ err: error, session: session.id }, 'the MCP transport refused a request');
    const requests = live.get(session.id) ?? new Set();
    live.set(session.id, requests.add(transport));
    res.once('close', () => {
      requests.delete(transport);
      if (requests.size === 0 && live.get(session.id) === requests) live.delete(session.id);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }

  /** Kept with the session, for whichever process serves its next call; a write that fails only costs that call its lower budget. */
  function learned(member: Member, sessionId: string, limitMs: number): void {
    logger.debug({ member: member.name, session: sessionId, limitMs }, 'the client’s time limit is kept with its session');
    team
      .learnClientLimit(pool, member.id, sessionId, limitMs)
      .catch((error: unknown) => logger.warn({ err: error, session: sessionId }, 'the client’s time limit could not be kept'));
  }

  /** `notifications/cancelled` names a request of the session's that is in progress under another server, here or in another process. */
  function passOnCancellations(sessionId: string, messages: JSONRPCMessage[]): void {
    for (const message of messages) {
      if (!('method' in message) || message.method !== 'notifications/cancelled') continue;
      const { requestId, reason } = (message.params ?? {}) as { requestId?: unknown; reason?: unknown };
      if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
      const notice = { kind: 'call' as const, session: sessionId, requestId, reason: typeof reason === 'string' ? reason : 'cancelled' };
      stops
        .send(notice)
        .catch((error: unknown) => logger.warn({ err: error, session: sessionId }, 'a client’s stop of a call could not be passed on'));
    }
  }

  async function remove(req: IncomingMessage, res: ServerResponse, member: Member): Promise<void> {
    const sessionId = sessionHeader(req);
    if (!sessionId) return send(res, 400, rpcError('Bad Request: Mcp-Session-Id header is required'));
    const closed = await withDatabase(res, () => team.closeSession(pool, member.id, sessionId));
    if (closed === undefined) return;
    if (!closed) return send(res, 404, rpcError('Session not found', -32001));
    logger.info({ member: member.name, session: sessionId }, 'an MCP session closed');
    res.writeHead(200).end();
  }

  return function serveMcp(req: IncomingMessage, res: ServerResponse, member: Member): Promise<void> {
    switch (req.method) {
      case 'POST':
        return post(req, res, member);
      case 'DELETE':
        return remove(req, res, member);
      default:
        // No stream at GET: a server's messages go out in the replies to its client's requests (the spec's 405 for that).
        send(res, 405, rpcError('Method not allowed: this server answers POST and DELETE at /mcp, and offers no stream at GET'), {
          Allow: 'POST, DELETE',
          Connection: 'close',
        });
        return Promise.resolve();
    }
  };
}

/** A request the SDK's transport refuses on its own terms, touching no session: no server is connected to it. */
async function refusedByTransport(req: IncomingMessage, res: ServerResponse, parsed?: unknown): Promise<void> {
  await new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }).handleRequest(req, res, parsed);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body's JSON-RPC messages (one, or a batch within the SDK's limit), or undefined when it is not JSON-RPC. */
function jsonRpcMessages(parsed: unknown): JSONRPCMessage[] | undefined {
  const all = Array.isArray(parsed) ? parsed : [parsed];
  if (all.length === 0 || all.length > MAX_BATCH_SIZE) return undefined;
  const messages = all.map((message) => JSONRPCMessageSchema.safeParse(message));
  return messages.every((message) => message.success) ? messages.map((message) => message.data!) : undefined;
}

function sessionHeader(req: IncomingMessage): string | undefined {
  const value = req.headers['mcp-session-id'];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
