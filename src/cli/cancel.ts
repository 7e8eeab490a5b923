import { Deadline } from '../clock.js';
import type { Config } from '../config/config.js';
import { headline } from '../present/headline.js';
import { RunHandle } from '../run/handle.js';
import { answer, readCommandLine } from './command-line.js';
import { CANCEL_HELP } from './help.js';
import { existingRuns } from './existing-runs.js';

/** How long `cancel` waits for the stopped run to journal its end. */
const SETTLE_MS = 5000;

/** `parallel-llm-mcp cancel <run_id>`: stops the run and its billing; its saved answers stay for the same request to reuse. */
export async function cancelCommand(args: string[], readConfig: () => Config): Promise<number> {
  const line = readCommandLine('cancel', args, { words: true });
  if (line.kind !== 'run') return answer(line, CANCEL_HELP);
  if (line.words.length !== 1) {
    process.stderr.write('parallel-llm-mcp cancel: give one run id: parallel-llm-mcp cancel <run_id> (parallel-llm-mcp runs lists them)\n');
    return 2;
  }
  const id = line.words[0]!.trim();
  const service = existingRuns(readConfig());
  try {
    const outcome = await service.cancel(id, 'cancelled from the terminal (parallel-llm-mcp cancel)');
    if (!outcome.stopped) {
      process.stderr.write(`parallel-llm-mcp cancel: ${outcome.reason}\n`);
      return 1;
    }
    const state = await new RunHandle(id, service).wait({ deadline: Deadline.after(SETTLE_MS) });
    process.stdout.write(`${headline(state)}\n`);
    return 0;
  } finally {
    await service.close();
  }
}
