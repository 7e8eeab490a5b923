import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunPage } from '../src/view/page-types.js';
import { RunPageView } from './run-page.js';

/**
 * The run's page as an MCP App: drawn from the tool result the host hands it, completed with
 * every answer through the page's own tool, and, while the run goes, brought up to date
 * through `get_run` (which returns within a few seconds, or at once when the run ends).
 */
const WAIT_SECONDS = 3;
const PAGE_TOOL = 'get_run_page';

const view = new RunPageView(document.getElementById('root')!);
const app = new App({ name: 'parallel-llm-run', version: '1.0.0' });
let following: string | undefined;

app.ontoolresult = (result) => {
  const data = (result as CallToolResult).structuredContent as RunPage['result'] | undefined;
  if (!data?.run_id) return view.message(textOf(result as CallToolResult) || 'This call started no run.');
  view.show({ result: data, title: '', answer: data.answer, answers: data.models.map((model) => model.answer) });
  void follow(data.run_id);
};
app.onhostcontextchanged = (context) => theme(context);

// A link in an answer opens through the host, which asks the user: the page itself goes nowhere.
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
  if (!link) return;
  event.preventDefault();
  void app.openLink({ url: link.href }).catch(() => undefined);
});

void app.connect().then(() => theme(app.getHostContext()));

async function follow(id: string): Promise<void> {
  if (following === id) return;
  following = id;
  try {
    for (let poll = 1; following === id; poll++) {
      const page = await app.callServerTool({ name: PAGE_TOOL, arguments: { run_id: id } });
      if (following !== id) return;
      if (page.isError) return view.message(textOf(page));
      const shown = page.structuredContent as unknown as RunPage;
      view.show(shown);
      if (shown.result.status !== 'running') return;
      await app.callServerTool({ name: 'get_run', arguments: { run_id: id, wait_seconds: WAIT_SECONDS, poll } });
    }
  } catch (error) {
    console.warn('the run page stopped following the run', error);
    if (following === id) following = undefined;
  }
}

function theme(context: ReturnType<App['getHostContext']>): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

const textOf = (result: CallToolResult) => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
