import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Result } from '../result.js';
import type { LookupError, RunService } from '../run/service.js';
import { inputs } from './protocol-schemas.js';
import { HOST_NAME, TOOLS, viewToWire, type HostInfo } from './protocol.js';

/**
 * The run host's MCP server for one face's connection: each tool is one operation of the run
 * service the host executes runs with. A face that goes away takes nothing with it: its waits
 * end, its runs go on.
 */
export function hostServer(service: RunService, version: string, info: () => HostInfo): McpServer {
  const server = new McpServer({ name: HOST_NAME, version }, { capabilities: { tools: {} } });
  server.registerTool(TOOLS.start, { inputSchema: inputs.start }, async ({ request, fresh, max_cost_usd }) => {
    const started = await service.start(request, { fresh, maxCostUsd: max_cost_usd });
    return data('refused' in started ? started : { run_id: started.id, joined: started.joined, state: started.state });
  });
  server.registerTool(TOOLS.watch, { inputSchema: inputs.watch }, async ({ run_id, since, wait_ms, until_settled, view_chars }, extra) => {
    const options = { since, waitMs: wait_ms, signal: extra.signal, untilSettled: until_settled, viewChars: view_chars };
    return found(await service.watch(run_id, options), ({ view, ...watched }) => (view ? { ...watched, view: viewToWire(view) } : watched));
  });
  server.registerTool(TOOLS.view, { inputSchema: inputs.view }, async ({ run_id, max_chars }) =>
    found(await service.view(run_id, max_chars), viewToWire),
  );
  server.registerTool(TOOLS.cancel, { inputSchema: inputs.cancel }, async ({ run_id, reason }) =>
    data(await service.cancel(run_id, reason)),
  );
  server.registerTool(TOOLS.list, { inputSchema: inputs.list }, async ({ limit }) =>
    data({ runs: (await service.list(limit)).map((listing) => ({ id: listing.id, state: listing.state ?? null })) }),
  );
  server.registerTool(TOOLS.info, { inputSchema: inputs.info }, async () => data(info()));
  return server;
}

function data(value: object): CallToolResult {
  return { content: [], structuredContent: value as Record<string, unknown> };
}

function found<T>(result: Result<T, LookupError>, shape: (value: T) => object): CallToolResult {
  if (result.ok) return data(shape(result.value));
  return { content: [{ type: 'text', text: result.error.message }], structuredContent: { error: result.error }, isError: true };
}
