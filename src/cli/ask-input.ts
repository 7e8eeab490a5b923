import { text } from 'node:stream/consumers';
import { ASK_OPTIONS, askOptions, type AskOptions } from './ask-options.js';
import { answer, commandError, readCommandLine } from './command-line.js';
import { ASK_HELP } from './help.js';

const GIVE_A_PROMPT = 'parallel-llm-mcp: give a prompt: parallel-llm-mcp ask "your question", or pipe it on stdin';

export interface AskInput {
  prompt: string;
  options: AskOptions;
}

/** ask's prompt (from its arguments or stdin) and options; or, when there is nothing to send, the exit code. */
export async function readAskInput(args: string[], stdin: NodeJS.ReadStream): Promise<AskInput | { exitCode: number }> {
  const line = readCommandLine('ask', args, { words: true, options: ASK_OPTIONS });
  if (line.kind !== 'run') return { exitCode: answer(line, ASK_HELP) };
  const options = askOptions(line.values);
  if (!options.ok) return { exitCode: answer(commandError('ask', options.error), ASK_HELP) };
  if (line.words.length === 0 && stdin.isTTY) {
    // Nothing is piped in: waiting for the terminal's end of input would look like a hang.
    process.stderr.write(`${GIVE_A_PROMPT}\n\n${ASK_HELP}`);
    return { exitCode: 2 };
  }
  const prompt = line.words.length > 0 ? line.words.join(' ') : await text(stdin);
  if (prompt.trim() === '') {
    process.stderr.write(`${GIVE_A_PROMPT}\n`);
    return { exitCode: 2 };
  }
  return { prompt, options: options.value };
}
