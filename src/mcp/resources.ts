import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { RunHandle } from '../run/handle.js';
import type { RunRecord } from '../run/record.js';
import type { Runs } from '../run/runs.js';
import { count } from '../present/words.js';

/** How many runs resources/list offers: the newest. */
const LISTED_RUNS = 25;

/**
 * Runs as MCP resources, `parallel-llm://runs/{run_id}`, each read as its result's text: a user
 * can find and attach a run in any client that shows resources. The list changes as runs start.
 */
export function registerRunResources(server: McpServer, runs: Runs, text: (handle: RunHandle) => Promise<string>): void {
  const template = new ResourceTemplate('parallel-llm://runs/{run_id}', {
    list: async () => ({ resources: (await runs.recent(LISTED_RUNS)).map(listing) }),
  });
  server.registerResource(
    'runs',
    template,
    { title: 'Runs of process_prompt', description: 'Recent runs, newest first; each reads as its result (what process_prompt or get_run returns).', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const id = String(variables.run_id);
      const handle = await runs.find(id);
      if (!handle) throw new McpError(ErrorCode.InvalidParams, `No run ${id}`);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await text(handle) }] };
    },
  );
  runs.onStart(() => server.sendResourceListChanged());
}

function listing({ id, record }: { id: string; record: Readonly<RunRecord> | undefined }) {
  const uri = `parallel-llm://runs/${id}`;
  if (!record) return { uri, name: id, title: `Run ${id}`, mimeType: 'text/markdown' };
  const firstLine = record.prompt.trim().split('\n', 1)[0]!;
  const title = firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine;
  return {
    uri,
    name: id,
    title: `${title} (${record.status.replace('_', ' ')})`,
    description: `${count(record.candidates.length, 'model')}, started ${record.started_at}`,
    mimeType: 'text/markdown',
  };
}
