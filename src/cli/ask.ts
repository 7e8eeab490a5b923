import { Deadline } from '../clock.js';
import type { Config } from '../config/config.js';
import { RunHostClient } from '../host/client.js';
import { createLogger } from '../log/logger.js';
import { agreementText } from '../present/agreement.js';
import { headline } from '../present/headline.js';
import { refusalText } from '../present/refusal.js';
import { shownTexts, WHOLE_CHARS } from '../present/shown.js';
import { structuredResult } from '../present/structured.js';
import { answersText, footer } from '../present/text.js';
import { RunHandle } from '../run/handle.js';
import type { RunState } from '../run/record.js';
import { STATUS } from '../run/status.js';
import { effectiveCeiling, runRequest } from '../mcp/run-request.js';
import type { RunView } from '../run/service.js';
import { packageVersion } from '../version.js';
import { readAskInput, type AskInput } from './ask-input.js';
import { createBoard, type Board } from './board.js';
import { eventsBetween, synthesisOutcome } from './events.js';

/** How often the terminal hears from the run host while nothing changes (the board redraws on its own). */
const HEARTBEAT_MS = 10_000;

/** `parallel-llm-mcp ask "prompt"`: the answer on stdout, everything else on stderr. */
export async function runAsk(args: string[], readConfig: () => Config): Promise<number> {
  const input = await readAskInput(args, process.stdin);
  if ('exitCode' in input) return input.exitCode;
  return askPrompt(readConfig(), input);
}

/**
 * Runs the request in the run host (or here, where there is none) and follows it to its end.
 * Ctrl-C stops the run and its billing; anything else that ends this process (closing the
 * terminal, a kill) leaves the run going, and the same command again picks it up.
 */
async function askPrompt(config: Config, input: AskInput): Promise<number> {
  // The prompt, with the flags' settings over the configuration's.
  const request = runRequest(input.prompt, input.options.settings, config);
  if (request.prompt.length > config.maxPromptChars) {
    process.stderr.write(
      `parallel-llm-mcp: the prompt has ${request.prompt.length} characters, more than PARALLEL_LLM_MAX_PROMPT_CHARS (${config.maxPromptChars})\n`,
    );
    return 2;
  }
  // The board already shows every outcome; JSON on stderr would break it. Ask for it with
  // PARALLEL_LLM_LOG_LEVEL; the log file, if any, gets everything.
  const logger = createLogger({
    level: config.logLevel,
    file: config.logFile,
    stderrLevel: process.env.PARALLEL_LLM_LOG_LEVEL ? config.logLevel : 'silent',
  });
  const service = new RunHostClient(config, logger, packageVersion());
  let board: Board | undefined;
  // Ctrl-C from now on stops the run, even one pressed while the run is being started.
  const stopped = new Promise<void>((resolve) =>
    process.once('SIGINT', () => {
      // A second Ctrl-C leaves at once; the run is stopping anyway.
      process.once('SIGINT', () => process.exit(130));
      resolve();
    }),
  );
  try {
    const maxCostUsd = effectiveCeiling(input.options.settings.max_cost_usd, config.maxCostUsd);
    const started = await service.start(request, { fresh: input.options.fresh, maxCostUsd });
    if ('refused' in started) {
      process.stderr.write(`${refusalText(started.refused)}\n`);
      return 1;
    }
    const { id, joined } = started;
    board = createBoard(request.models, request.synthesizers[0]!, process.stderr);
    const handle = new RunHandle(id, service);
    void stopped.then(() => handle.cancel('stopped at the terminal (Ctrl-C)'));
    const view = await follow(handle, board);
    const { status } = view.state;
    board.stop(synthesisOutcome(view.state));
    const answered = !STATUS[status].isError && status !== 'interrupted';
    const shown = shownTexts(view, WHOLE_CHARS);
    const notice = service.notice;
    process.stderr.write(`\n${headline(view.state, undefined, joined)}\n\n`);
    // --json: the tool's structuredContent, answers included, for scripts.
    if (input.options.json) {
      const structured = structuredResult(view, shown, {
        withAnswers: true,
        answersIn: 'structured_content',
        joined,
        budgetMs: undefined,
        poll: undefined,
        notice,
      });
      process.stdout.write(`${JSON.stringify(structured, null, 2)}\n`);
    } else (answered ? process.stdout : process.stderr).write(`${answersText(view.state, shown)}\n`);
    // The account of agreement goes with the footer, to stderr: stdout keeps the answer alone, for scripts.
    const agreement = input.options.json ? '' : agreementText(view.state, WHOLE_CHARS);
    if (agreement) process.stderr.write(`\n${agreement}\n`);
    process.stderr.write(`\n${footer(view, { joined, notice })}\n`);
    return status === 'cancelled' ? 130 : answered ? 0 : 1;
  } finally {
    board?.stop();
    await service.close();
  }
}

/** No client is waiting at a terminal: the run is followed to its end, each step shown on the board; then its whole view. */
async function follow(handle: RunHandle, board: Board): Promise<RunView> {
  let previous: RunState | undefined;
  const show = (state: RunState) => {
    for (const event of eventsBetween(previous, state)) board.onEvent(event);
    previous = state;
  };
  const view = await handle.waitForView({ deadline: Deadline.after(Infinity), heartbeatMs: HEARTBEAT_MS, onUpdate: show }, WHOLE_CHARS);
  show(view.state);
  return view;
}
