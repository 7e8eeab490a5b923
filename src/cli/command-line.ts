import { parseArgs } from 'node:util';

/** What a terminal command was asked to do. */
export type CommandLine = { kind: 'run'; words: string[] } | { kind: 'help' } | { kind: 'error'; message: string };

/**
 * A subcommand's arguments, the POSIX way: `-h`/`--help` asks for its help, any other option is
 * an error, and `--` ends the options (so `ask -- --help` asks "--help"). `words: false` refuses
 * arguments that are not options.
 */
export function readCommandLine(command: string, args: string[], { words }: { words: boolean }): CommandLine {
  const { tokens } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: false, tokens: true });
  const see = `see parallel-llm-mcp ${command} --help`;
  const unknown = tokens.find((token) => token.kind === 'option' && token.name !== 'help');
  if (unknown?.kind === 'option') {
    const dashWord = words ? `; to send a prompt that begins with "-", put -- before it` : '';
    return { kind: 'error', message: `parallel-llm-mcp ${command}: unknown option "${unknown.rawName}"${dashWord}; ${see}` };
  }
  if (tokens.some((token) => token.kind === 'option')) return { kind: 'help' };
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  if (!words && positionals.length > 0) {
    return { kind: 'error', message: `parallel-llm-mcp ${command}: unexpected argument "${positionals[0]}"; ${see}` };
  }
  return { kind: 'run', words: positionals };
}

/** Prints the help (stdout, exit 0) or the error (one line on stderr, exit 2). */
export function answer(line: Exclude<CommandLine, { kind: 'run' }>, help: string): number {
  if (line.kind === 'help') {
    process.stdout.write(help);
    return 0;
  }
  process.stderr.write(`${line.message}\n`);
  return 2;
}
