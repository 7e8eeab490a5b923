import type { RunPage, RunRow } from '../src/view/page-types.js';
import { RunPageView } from './run-page.js';
import { RunsListView } from './runs-list.js';

/**
 * The run's page and the runs list in a browser, served by `parallel-llm-mcp view` under a
 * secret path: /TOKEN/ is the list, /TOKEN/runs/ID a run. Data comes from the same server
 * (/TOKEN/api/...); a running run is asked again every two seconds, the list every five.
 */
const RUN_EVERY_MS = 2000;
const LIST_EVERY_MS = 5000;

const [, token = '', kind, id] = location.pathname.split('/');
const base = `/${token}/`;
const root = document.getElementById('root')!;

async function get<T>(path: string): Promise<T> {
  const response = await fetch(base + path, { cache: 'no-store' });
  if (!response.ok) throw new Error(response.status === 404 ? 'There is no such run.' : `The server answered ${response.status}.`);
  return (await response.json()) as T;
}

async function showRun(runId: string): Promise<void> {
  const view = new RunPageView(root);
  for (;;) {
    try {
      const page = await get<RunPage>(`api/runs/${encodeURIComponent(runId)}`);
      document.title = `${page.title || runId} · parallel-llm-mcp`;
      view.show(page);
      if (page.result.status !== 'running') return;
    } catch (error) {
      return view.message((error as Error).message);
    }
    await new Promise((resolve) => setTimeout(resolve, RUN_EVERY_MS));
  }
}

async function showList(): Promise<void> {
  const view = new RunsListView(root, (runId) => `${base}runs/${encodeURIComponent(runId)}`);
  for (;;) {
    try {
      view.show(await get<RunRow[]>('api/runs'));
    } catch (error) {
      console.warn('the runs list could not be read', error);
    }
    await new Promise((resolve) => setTimeout(resolve, LIST_EVERY_MS));
  }
}

void (kind === 'runs' && id ? showRun(decodeURIComponent(id)) : showList());
