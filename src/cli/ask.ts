import { Deadline } from '../clock.js';
import type { Config } from '../config.js';
import { chooseRunService } from '../host/choose.js';
import { createLogger } from '../log/logger.js';
import { headline } from '../present/headline.js';
import { shownTexts } from '../present/shown.js';
import { answersText, footer } from '../present/text.js';
import { RunHandle } from '../run/handle.js';
import type { RunState } from '../run/record.js';
import { STATUS } from '../run/record.js';
import type { RunRequest } from '../run/request.js';
import { strategyRequest } from '../mcp/strategy-inputs.js';
import { refusalText } from '../present/refusal.js';
import { effectiveCeiling } from '../run/ceiling.js';
import { packageVersion } from '../version.js';
import { takeStrategyFlags } from './ask-flags.js';
import { readAskPrompt } from './ask-input.js';
import { createBoard, type Board } from './board.js';
import { eventsBetween, synthesisOutcome } from './events.js';

/** A terminal shows answers whole; this only bounds reading one back from a run folder. */
const WHOLE = 64 * 1024 * 1024;
/** How often the terminal hears from the run host while nothing changes (the board redraws on its own). */
const HEARTBEAT_MS = 10_000;

/** `parallel-llm-mcp ask "prompt"`: the answer on stdout, everything else on stderr. */
export async function runAsk(args: string[], readConfig: () => Config): Promise<number> {
  const flags = takeStrategyFlags(args);
  if (!flags.ok) {
    process.stderr.write(`parallel-llm-mcp ask: ${flags.error}; see parallel-llm-mcp ask --help\n`);
    return 2;
  }
  const input = await readAskPrompt(flags.value.rest, process.stdin);
  if ('exitCode' in input) return input.exitCode;
  const config = readConfig();
  const { inputs } = flags.value;
  const request = { prompt: input.prompt, models: config.models, synthesizers: config.synthesizerModels, temperature: config.temperature, maxTokens: config.maxTokens };
  return askPrompt(config, { ...request, ...strategyRequest(inputs, config) }, effectiveCeiling(inputs.max_cost_usd, config.maxCostUsd));
}

/**
 * Runs the request in the run host (or here, where there is none) and follows it to its end.
 * Ctrl-C stops the run and its billing; anything else that ends this process (closing the
 * terminal, a kill) leaves the run going, and the same command again picks it up.
 */
async function askPrompt(config: Config, request: RunRequest, maxCostUsd: number | undefined): Promise<number> {
  if (request.prompt.length > config.maxPromptChars) {
    process.stderr.write(`parallel-llm-mcp: the prompt has ${request.prompt.length} characters, more than PARALLEL_LLM_MAX_PROMPT_CHARS (${config.maxPromptChars})\n`);
    return 2;
  }
  // The board already shows every outcome; JSON on stderr would break it. Ask for it with
  // PARALLEL_LLM_LOG_LEVEL; the log file, if any, gets everything.
  const logger = createLogger({ level: config.logLevel, file: config.logFile, stderrLevel: process.env.PARALLEL_LLM_LOG_LEVEL ? config.logLevel : 'silent' });
  const service = await chooseRunService(config, logger, packageVersion());
  let board: Board | undefined;
  try {
    const started = await service.start(request, { maxCostUsd });
    if ('refused' in started) {
      process.stderr.write(`${refusalText(started.refused)}\n`);
      return 1;
    }
    const { id, joined } = started;
    board = createBoard(request.models, request.synthesizers[0]!, process.stderr);
    const handle = new RunHandle(id, service);
    process.once('SIGINT', () => {
      // A second Ctrl-C leaves at once; the run is stopping anyway.
      process.once('SIGINT', () => process.exit(130));
      void handle.cancel('stopped at the terminal (Ctrl-C)');
    });
    const state = await follow(handle, board);
    const view = await handle.view(WHOLE);
    board.stop(synthesisOutcome(view.state));
    const { status } = state;
    const answered = !STATUS[status].isError && status !== 'interrupted';
    process.stderr.write(`\n${headline(view.state)}\n\n`);
    (answered ? process.stdout : process.stderr).write(`${answersText(view.state, shownTexts(view, WHOLE))}\n`);
    process.stderr.write(`\n${footer(view, { joined, notice: service.notice })}\n`);
    return status === 'cancelled' ? 130 : answered ? 0 : 1;
  } finally {
    board?.stop();
    await service.close();
  }
}

/** No client is waiting at a terminal: the run is followed to its end, each step shown on the board. */
async function follow(handle: RunHandle, board: Board): Promise<RunState> {
  let previous: RunState | undefined;
  const show = (state: RunState) => {
    for (const event of eventsBetween(previous, state)) board.onEvent(event);
    previous = state;
  };
  const state = await handle.wait({ deadline: Deadline.after(Infinity), heartbeatMs: HEARTBEAT_MS, onUpdate: show });
  show(state);
  return state;
}
