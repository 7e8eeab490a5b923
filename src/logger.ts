import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Anything that could carry the key is censored, wherever it appears in a log line. */
const REDACT = ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'config.apiKey'];

/**
 * pino JSON to stderr (fd 2), and to `file` as well when given. Never stdout: in server
 * mode stdout carries JSON-RPC and nothing else. `stderrLevel` lets the terminal commands
 * keep their own output readable while the file still gets everything.
 */
export function createLogger(options: { level: LogLevel; file?: string | undefined; stderrLevel?: LogLevel }): Logger {
  const streams: pino.StreamEntry[] = [];
  const stderrLevel = options.stderrLevel ?? options.level;
  if (stderrLevel !== 'silent') streams.push({ level: stderrLevel, stream: pino.destination({ dest: 2, sync: true }) });
  if (options.file && options.level !== 'silent') {
    streams.push({ level: options.level, stream: pino.destination({ dest: options.file, mkdir: true, sync: true }) });
  }
  return pino(
    {
      name: 'parallel-llm-mcp',
      level: streams.length === 0 ? 'silent' : lowest(streams.map((stream) => stream.level as pino.Level)),
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.multistream(streams),
  );
}

const lowest = (levels: pino.Level[]) => levels.reduce((a, b) => (pino.levels.values[a]! <= pino.levels.values[b]! ? a : b));
