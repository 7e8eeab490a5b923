import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/** Anything that could carry the key is censored, wherever it appears in a log line. */
const REDACT = ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'config.apiKey'];

/**
 * pino JSON to stderr (fd 2), and to `file` as well when given. Never stdout: in server
 * mode stdout carries JSON-RPC and nothing else.
 */
export function createLogger(options: { level: LogLevel; file?: string | undefined }): Logger {
  // Streams take no "silent"; the logger's own level already filters everything out then.
  const level = options.level === 'silent' ? 'fatal' : options.level;
  const streams: pino.StreamEntry[] = [{ level, stream: pino.destination({ dest: 2, sync: true }) }];
  if (options.file) {
    streams.push({ level, stream: pino.destination({ dest: options.file, mkdir: true, sync: true }) });
  }
  return pino(
    {
      name: 'parallel-llm-mcp',
      level: options.level,
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pino.multistream(streams),
  );
}
