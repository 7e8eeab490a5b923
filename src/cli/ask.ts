import type { Config } from '../config.js';
import { createLogger } from '../log/logger.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { headline } from '../present/headline.js';
import { shownTexts } from '../present/shown.js';
import { structuredResult } from '../present/structured.js';
import { answersText, footer } from '../present/text.js';
import type { RunRecord } from '../run/record.js';
import { runRequest, type RunRequest } from '../run/request.js';
import { runsFromConfig } from '../run/from-config.js';
import { readAskInput, type AskInput } from './ask-input.js';
import { createBoard } from './board.js';
import { eventsBetween, synthesisOutcome } from './events.js';

/** How often the terminal looks at a run of another process (one in this process wakes it at once). */
const POLL_MS = 250;
/** A terminal shows answers whole; this only bounds reading one back from another process's folder. */
const WHOLE = 64 * 1024 * 1024;

/** `parallel-llm-mcp ask "prompt"`: the answer on stdout, everything else on stderr. */
export async function runAsk(args: string[], readConfig: () => Config): Promise<number> {
  const input = await readAskInput(args, process.stdin);
  if ('exitCode' in input) return input.exitCode;
  return askPrompt(readConfig(), input);
}

/** The run ask asks for: the prompt, with the flags' settings over the configuration's. */
export const askRequest = (config: Config, input: AskInput): RunRequest => runRequest(input.prompt, input.options.settings, config);

async function askPrompt(config: Config, input: AskInput): Promise<number> {
  const request = askRequest(config, input);
  if (request.prompt.length > config.maxPromptChars) {
    process.stderr.write(`parallel-llm-mcp: the prompt has ${request.prompt.length} characters, more than PARALLEL_LLM_MAX_PROMPT_CHARS (${config.maxPromptChars})\n`);
    return 2;
  }
  // The board already shows every outcome; JSON on stderr would break it. Ask for it with
  // PARALLEL_LLM_LOG_LEVEL; the log file, if any, gets everything.
  const logger = createLogger({ level: config.logLevel, file: config.logFile, stderrLevel: process.env.PARALLEL_LLM_LOG_LEVEL ? config.logLevel : 'silent' });
  const client = OpenRouterClient.fromConfig(config, logger);
  const runs = runsFromConfig(config, client, logger);
  const board = createBoard(request.models, request.synthesizers[0]!, process.stderr);
  try {
    const { handle, joined } = await runs.start(request, { fresh: input.options.fresh });
    process.once('SIGINT', () => handle.cancel('stopped at the terminal (Ctrl-C)'));
    // No client is waiting at a terminal: the run is followed to its end.
    let previous: Readonly<RunRecord> | undefined;
    for (let record = await handle.current(); ; record = await handle.current()) {
      for (const event of eventsBetween(previous, record)) board.onEvent(event);
      previous = structuredClone(record);
      if (record.status !== 'running') break;
      await handle.nextChange(POLL_MS);
    }
    const view = await handle.view(WHOLE);
    board.stop(synthesisOutcome(view.record));
    const { status } = view.record;
    const answered = status !== 'failed' && status !== 'cancelled' && status !== 'interrupted';
    const shown = shownTexts(view, WHOLE);
    process.stderr.write(`\n${headline(view.record)}\n\n`);
    // --json: the tool's structuredContent, answers included, for scripts.
    if (input.options.json) process.stdout.write(`${JSON.stringify(structuredResult(view, shown, { withAnswers: true, answersIn: 'structured_content', joined, budgetMs: undefined }), null, 2)}\n`);
    else (answered ? process.stdout : process.stderr).write(`${answersText(view.record, shown)}\n`);
    process.stderr.write(`\n${footer(view)}\n`);
    return status === 'cancelled' ? 130 : answered ? 0 : 1;
  } finally {
    board.stop();
    await client.close();
  }
}
