import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';
import { openLogFile } from './log-file.js';
import { DroppingSink, fileStream, warningLine } from './log-sink.js';

/** Anything that could carry the key is censored, wherever it appears in a log line. */
const REDACT = [
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'config.apiKey',
];
/** How long `logger.flush` waits for lines still on their way, at exit. */
const FLUSH_MS = 250;

/**
 * pino JSON to stderr, and to `file` as well when given. Never stdout: in server mode
 * stdout carries JSON-RPC and nothing else. `stderrLevel` lets the terminal commands keep
 * their own output readable while the file still gets everything. Logging never blocks and
 * never throws: lines that cannot be written in time are dropped (see DroppingSink), and
 * `logger.flush(done)` waits a moment for the rest. A bad `file` throws a ConfigError.
 */
export function createLogger(options: {
  level: LogLevel;
  file?: string | undefined;
  stderrLevel?: LogLevel;
  /** The file's lines of one turn of the event loop written together after it (see DroppingSink): for a process whose every exit flushes its log. */
  fileLinesPerTurn?: boolean;
}): Logger {
  const streams: pino.StreamEntry[] = [];
  const sinks: DroppingSink[] = [];
  const stderrLevel = options.stderrLevel ?? options.level;
  const stderr = stderrSink();
  if (stderrLevel !== 'silent') {
    streams.push({ level: stderrLevel, stream: stderr });
    sinks.push(stderr);
  }
  if (options.file && options.level !== 'silent') {
    const file = options.file;
    const sink = new DroppingSink(
      fileStream(openLogFile(file), (error) => {
        stderr.write(warningLine('cannot write the log file: its lines are dropped until it works again', { file, code: error.code }));
      }),
      { perTurn: options.fileLinesPerTurn ?? false },
    );
    streams.push({ level: options.level, stream: sink });
    sinks.push(sink);
  }
  const destination = Object.assign(pino.multistream(streams), {
    flush(done: () => void) {
      void Promise.all(sinks.map((sink) => sink.drained(FLUSH_MS))).then(done);
    },
  });
  return pino(
    {
      name: 'parallel-llm-mcp',
      level: streams.length === 0 ? 'silent' : lowest(streams.map((stream) => stream.level as pino.Level)),
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** One for the process: stderr is one stream, whatever number of loggers write to it. */
let sharedStderrSink: DroppingSink | undefined;
const stderrSink = () => (sharedStderrSink ??= new DroppingSink(process.stderr));

const lowest = (levels: pino.Level[]) => levels.reduce((a, b) => (pino.levels.values[a]! <= pino.levels.values[b]! ? a : b));
