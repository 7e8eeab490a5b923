import { text } from 'node:stream/consumers';
import { answer, readCommandLine } from './command-line.js';
import { ASK_HELP } from './help.js';

const GIVE_A_PROMPT = 'parallel-llm-mcp: give a prompt: parallel-llm-mcp ask "your question", or pipe it on stdin';

/** ask's prompt, from its arguments or stdin; or, when there is nothing to send, the exit code. */
export async function readAskPrompt(args: string[], stdin: NodeJS.ReadStream): Promise<{ prompt: string } | { exitCode: number }> {
  const line = readCommandLine('ask', args, { words: true });
  if (line.kind !== 'run') return { exitCode: answer(line, ASK_HELP) };
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
  return { prompt };
}
