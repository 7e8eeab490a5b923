import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RunHandle } from '../run/handle.js';
import type { Listing, RunService } from '../run/service.js';
import { count } from '../present/words.js';

/** How many runs resources/list offers: the newest. */
const LISTED_RUNS = 25;

/**
 * Runs as MCP resources, `parallel-llm://runs/{run_id}`, each read as its result's text: a user
 * can find and attach a run in any client that shows resources. The list changes as runs start.
 */
export function registerRunResources(server: McpServer, service: RunService, text: (handle: RunHandle) => Promise<string>): void {
  const template = new ResourceTemplate('parallel-llm://runs/{run_id}', {
    list: async () => ({ resources: (await service.list(LISTED_RUNS)).map(listing) }),
  });
  server.registerResource(
    'runs',
    template,
    {
      title: 'Runs of process_prompt',
      description: 'Recent runs, newest first; each reads as its result (what process_prompt or get_run returns).',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const id = String(variables.run_id);
      const found = await service.watch(id, { waitMs: 0 });
      if (!found.ok) throw new McpError(ErrorCode.InvalidParams, `No run ${id}: ${found.error.message}`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await text(new RunHandle(id, service)) }] };
    },
  );
  service.onStart(() => server.sendResourceListChanged());
}

function listing({ id, state }: Listing) {
  const uri = `parallel-llm://runs/${id}`;
  if (!state) return { uri, name: id, title: `Run ${id}`, mimeType: 'text/markdown' };
  return {
    uri,
    name: id,
    title: `${state.title} (${state.status.replace('_', ' ')})`,
    description: `${count(state.candidates.length, 'model')}, started ${state.started_at}`,
    mimeType: 'text/markdown',
  };
}
