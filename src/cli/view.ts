import type { Config } from '../config/config.js';
import { runStorage } from '../store/run-store.js';
import { isMissing, runPage } from '../view/page-data.js';
import { openBrowser } from '../view/open-browser.js';
import { startViewServer } from '../view/server.js';
import { answer, readCommandLine } from './command-line.js';
import { VIEW_HELP } from './help.js';
import { existingRuns } from './existing-runs.js';

/**
 * `parallel-llm-mcp view [RUN_ID]`: the runs list and each run's page in a browser, served on
 * 127.0.0.1 until Ctrl-C. Read-only: it starts no run host and changes nothing.
 */
export async function viewCommand(args: string[], readConfig: () => Config): Promise<number> {
  const line = readCommandLine('view', args, { words: true, options: { 'no-open': 'boolean' } });
  if (line.kind !== 'run') return answer(line, VIEW_HELP);
  if (line.words.length > 1) {
    process.stderr.write('parallel-llm-mcp view: give at most one run id; see parallel-llm-mcp view --help\n');
    return 2;
  }
  const config = readConfig();
  const service = existingRuns(config);
  const store = runStorage(config);
  const id = line.words[0]?.trim();
  if (id !== undefined) {
    const found = await runPage(service, store, config, id);
    if (!found.ok) {
      process.stderr.write(
        `parallel-llm-mcp view: ${isMissing(found.error) ? `no run ${id} in ${config.outputDir}: ` : ''}${found.error.message}\n`,
      );
      await service.close();
      return 1;
    }
  }
  const server = await startViewServer(service, store, config);
  const url = id === undefined ? server.url : `${server.url}runs/${encodeURIComponent(id)}`;
  const opened = line.values['no-open'] ? false : openBrowser(url);
  process.stdout.write(`${opened ? 'Opened' : 'Open'} ${url}\nShowing the runs in ${config.outputDir}, read-only. Ctrl-C stops.\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await service.close();
  return 0;
}
