import { parseArgs } from 'node:util';

/** The options a subcommand takes beside `--help`: a string takes a value, a boolean none. */
export type OptionTypes = Record<string, 'string' | 'boolean'>;
export type OptionValues = Record<string, string | true>;

/** What a terminal command was asked to do. */
export type CommandLine = { kind: 'run'; words: string[]; values: OptionValues } | { kind: 'help' } | { kind: 'error'; message: string };

/**
 * A subcommand's arguments, the POSIX way: `-h`/`--help` asks for its help, an option not in
 * `options` is an error, and `--` ends the options (so `ask -- --help` asks "--help"). A value
 * comes after its option (`--models a,b` or `--models=a,b`); one that begins with "-" is taken
 * for a forgotten value. `words: false` refuses arguments that are not options.
 */
export function readCommandLine(
  command: string,
  args: string[],
  { words, options = {} }: { words: boolean; options?: OptionTypes },
): CommandLine {
  const declared = Object.fromEntries(Object.entries(options).map(([name, type]) => [name, { type }]));
  const { tokens } = parseArgs({
    args,
    options: { ...declared, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const error = (message: string) => commandError(command, message);
  const given = tokens.flatMap((token) => (token.kind === 'option' ? [token] : []));
  const unknown = given.find((token) => token.name !== 'help' && !Object.hasOwn(options, token.name));
  if (unknown)
    return error(`unknown option "${unknown.rawName}"${words ? '; to send a prompt that begins with "-", put -- before it' : ''}`);
  if (given.some((token) => token.name === 'help')) return { kind: 'help' };
  const values: OptionValues = {};
  for (const token of given) {
    if (options[token.name] === 'boolean') {
      if (token.value !== undefined) return error(`${token.rawName} takes no value`);
      values[token.name] = true;
    } else {
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) return error(`${token.rawName} needs a value`);
      values[token.name] = token.value;
    }
  }
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  if (!words && positionals.length > 0) return error(`unexpected argument "${positionals[0]}"`);
  return { kind: 'run', words: positionals, values };
}

/** A bad command line, said in one line that points to the command's help. */
export const commandError = (command: string, message: string): Extract<CommandLine, { kind: 'error' }> => ({
  kind: 'error',
  message: `parallel-llm-mcp ${command}: ${message}; see parallel-llm-mcp ${command} --help`,
});

/** Prints the help (stdout, exit 0) or the error (one line on stderr, exit 2). */
export function answer(line: Exclude<CommandLine, { kind: 'run' }>, help: string): number {
  if (line.kind === 'help') {
    process.stdout.write(help);
    return 0;
  }
  process.stderr.write(`${line.message}\n`);
  return 2;
}
