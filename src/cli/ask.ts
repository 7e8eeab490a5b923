import { SynthesisReserve } from '../budget.js';
import type { Config } from '../config.js';
import { createLimiter } from '../limiter.js';
import { createLogger } from '../logger.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { runPrompt } from '../pipeline.js';
import { resultFooter, resultHeadline } from '../present.js';
import { RunStore } from '../run-store.js';
import { readAskPrompt } from './ask-input.js';
import { createBoard } from './board.js';

/** `parallel-llm-mcp ask "prompt"`: the answer on stdout, everything else on stderr. */
export async function runAsk(args: string[], readConfig: () => Config): Promise<number> {
  const input = await readAskPrompt(args, process.stdin);
  if ('exitCode' in input) return input.exitCode;
  return askPrompt(readConfig(), input.prompt);
}

async function askPrompt(config: Config, prompt: string): Promise<number> {
  if (prompt.length > config.maxPromptChars) {
    process.stderr.write(`parallel-llm-mcp: the prompt has ${prompt.length} characters, more than PARALLEL_LLM_MAX_PROMPT_CHARS (${config.maxPromptChars})\n`);
    return 2;
  }
  // The board already shows every outcome; JSON on stderr would break it. Ask for it with
  // PARALLEL_LLM_LOG_LEVEL; the log file, if any, gets everything.
  const logger = createLogger({ level: config.logLevel, file: config.logFile, stderrLevel: process.env.PARALLEL_LLM_LOG_LEVEL ? config.logLevel : 'silent' });
  const client = OpenRouterClient.fromConfig(config, logger);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  // No client is waiting at a terminal: by default the budget lets every model finish.
  const budgetMs = config.budgetMs ?? Math.min(2 * config.timeoutMs + 10_000, 2_147_483_647);
  const board = createBoard(config.models, config.synthesizerModels[0]!, process.stderr);
  try {
    const report = await runPrompt(
      {
        client,
        limiter: createLimiter(config.maxConcurrency),
        store: config.saveOutputs ? new RunStore(config.outputDir) : undefined,
        logger,
        synthesisMaxChars: config.synthesisMaxChars,
        timeoutMs: config.timeoutMs,
      },
      {
        prompt,
        models: config.models,
        synthesizerModel: config.synthesizerModels[0]!,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        budgetMs,
        synthesisReserveMs: new SynthesisReserve().reserveMs(config.synthesizerModels[0]!, budgetMs),
      },
      { signal: controller.signal, onEvent: (event) => board.onEvent(event) },
    );
    board.stop(report.synthesis);
    const answered = report.status !== 'failed' && report.status !== 'cancelled';
    (answered ? process.stdout : process.stderr).write(`${resultHeadline(report, config.synthesisMaxChars)}\n`);
    process.stderr.write(`\n${resultFooter(report)}\n`);
    if (report.candidates.some((candidate) => candidate.status === 'cut_off')) {
      process.stderr.write('Waiting for the models still running, to save their answers (Ctrl-C to stop)...\n');
      await report.lateAnswers;
    }
    return report.status === 'cancelled' ? 130 : answered ? 0 : 1;
  } finally {
    board.stop();
    await client.close();
  }
}
