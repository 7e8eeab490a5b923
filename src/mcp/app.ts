import type { McpServer, RegisteredResource, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Config } from '../config/config.js';
import type { RunStorage } from '../store/store.js';
import type { RunService } from '../run/service.js';
import { pageHtml } from '../view/pages.js';

/** The run's page, as an MCP App (SPEC §12): what `process_prompt` and `get_run` results are shown with. */
export const RUN_APP_URI = 'ui://parallel-llm/run.html';

/**
 * The MCP Apps extension's names, as @modelcontextprotocol/ext-apps/server exports them (the
 * browser test checks them against it): that module is not imported, since it brings every
 * export of zod, its locales included, into what a server loads before answering `initialize`.
 */
const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app';
const RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** The page's own tool: a run's page data (every answer in full, up to the result cap), called by the page, never by a model. */
export const RUN_PAGE_TOOL = 'get_run_page';

/**
 * The run's page for clients that render MCP Apps (extension io.modelcontextprotocol/ui): a
 * UI resource, the page's own tool, and `_meta.ui.resourceUri` on the tools whose results it
 * shows. All of it is declared only to a client that says, in `initialize`, that it renders
 * MCP Apps: any other client lists exactly the tools and resources it did before.
 */
export function registerRunApp(
  server: McpServer,
  runs: { service: RunService; store: () => Promise<RunStorage | undefined> },
  config: Config,
  shownBy: RegisteredTool[],
): void {
  const { service, store } = runs;
  const resource = server.registerResource(
    'run-page',
    RUN_APP_URI,
    {
      title: 'A run, side by side',
      description: 'Each model’s answer side by side, and the synthesis, live while the run goes.',
      mimeType: RESOURCE_MIME_TYPE,
    },
    async () => ({
      contents: [
        {
          uri: RUN_APP_URI,
          mimeType: RESOURCE_MIME_TYPE,
          text: await pageHtml('app'),
          // Self-contained: the page loads nothing and connects nowhere, so it names no domain.
          _meta: { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [] }, prefersBorder: true } },
        },
      ],
    }),
  );
  const tool = server.registerTool(
    RUN_PAGE_TOOL,
    {
      title: 'A run’s page (for the run view)',
      description: 'The data of the run view: the run as get_run returns it, with every model’s answer. Called by the run view itself.',
      inputSchema: { run_id: z.string().trim().min(1) },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: { ui: { resourceUri: RUN_APP_URI, visibility: ['app'] } },
    },
    async ({ run_id }): Promise<CallToolResult> => {
      // Loaded when the page first asks: it reads run folders, which a server whose runs are the run host's never does otherwise.
      const { isMissing, runPage } = await import('../view/page-data.js');
      const page = await runPage(service, await store(), config, run_id);
      if (!page.ok) {
        const text = isMissing(page.error) ? `No run ${run_id}: ${page.error.message}` : page.error.message;
        return { content: [{ type: 'text', text }], isError: true };
      }
      return { content: [{ type: 'text', text: page.value.result.summary }], structuredContent: { ...page.value } };
    },
  );
  hideUntilAsked(server, [resource, tool], shownBy);
}

/**
 * Off until the client's `initialize` asks for MCP Apps. Switched on without an update
 * notification: the client has not listed anything yet when it says it is initialized.
 */
function hideUntilAsked(server: McpServer, own: Array<RegisteredResource | RegisteredTool>, shownBy: RegisteredTool[]): void {
  for (const item of own) item.enabled = false;
  const initialized = server.server.oninitialized;
  server.server.oninitialized = () => {
    initialized?.();
    const ui = server.server.getClientCapabilities()?.extensions?.[UI_EXTENSION] as { mimeTypes?: string[] } | undefined;
    if (!ui?.mimeTypes?.includes(RESOURCE_MIME_TYPE)) return;
    for (const item of own) item.enabled = true;
    for (const tool of shownBy) tool._meta = { ...tool._meta, ui: { resourceUri: RUN_APP_URI }, [RESOURCE_URI_META_KEY]: RUN_APP_URI };
  };
}
