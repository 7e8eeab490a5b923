import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config.js';

/**
 * One `KEY=VALUE` line, as .env files write it: an optional `export `, a value in double quotes
 * (escapes, may span lines), in single quotes (literal), or bare (up to a ` #` comment).
 */
const LINE = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*("(?:\\[\s\S]|[^"\\])*"|'[^']*'|[^\r\n]*)/gm;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/** The variables a .env text sets, in order; a later line wins. Lines that are not `KEY=VALUE` are skipped. */
export function parseDotEnv(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [, key, raw] of text.replace(/^\uFEFF/, '').matchAll(LINE)) values.set(key!, unquote(raw!));
  return values;
}

function unquote(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length > 1)
    return raw.slice(1, -1).replace(/\\([\s\S])/g, (_, char: string) => ESCAPES[char] ?? char);
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length > 1) return raw.slice(1, -1);
  return raw.replace(/(^|[ \t])#.*$/, '').trim();
}

/** Only this program's own variables: a project's .env may hold others (NODE_OPTIONS, NODE_TLS_REJECT_UNAUTHORIZED) that are not ours to set. */
const OURS = /^(OPENROUTER_|PARALLEL_LLM_)/;

/**
 * Reads `.env` in `dir` (the working folder) into `env`: only OPENROUTER_* and PARALLEL_LLM_*
 * variables, and never one the environment already has, even empty. A missing file is no
 * error; one that cannot be read is a ConfigError. Returns the names it set.
 */
export function loadDotEnv(dir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const file = path.join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new ConfigError(
      `${file} cannot be read (${code ?? (error as Error).message}): make it readable, or remove it and set the variables in the environment`,
    );
  }
  const set: string[] = [];
  for (const [key, value] of parseDotEnv(text)) {
    if (!OURS.test(key) || env[key] !== undefined) continue;
    env[key] = value;
    set.push(key);
  }
  return set;
}
