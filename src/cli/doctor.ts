import { closeSync } from 'node:fs';
import { ConfigError, type Config } from '../config/config.js';
import type { UpstreamError } from '../errors.js';
import { openLogFile } from '../log/log-file.js';
import { createLogger } from '../log/logger.js';
import { fetchKeyInfo, fetchModels } from '../openrouter/catalog.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { count, seconds } from '../present/words.js';
import { RunStore } from '../store/run-store.js';
import { answer, readCommandLine } from './command-line.js';
import { DOCTOR_HELP } from './help.js';
import { judgeModel, type ModelVerdict } from './model-check.js';

/** Each check's limit: a hung upstream or disk must not keep the user waiting. */
const CHECK_LIMIT_MS = 10_000;

/**
 * `unchecked`: the check could not tell (an endpoint missing, unreachable or silent; an alias on a
 * list without aliases). Only `fail` is something wrong, and only it fails doctor.
 */
type Level = 'ok' | 'warn' | 'fail' | 'unchecked';
interface Line {
  level: Level;
  what: string;
  /** How to fix it. */
  fix?: string;
}
const MARKS: Record<Level, string> = { ok: '✔', warn: '⚠', fail: '✘', unchecked: '?' };
const NETWORK_FIX = 'check the network and OPENROUTER_BASE_URL';

/** `parallel-llm-mcp doctor [--help]`. */
export async function doctorCommand(args: string[], readConfig: () => Config): Promise<number> {
  const line = readCommandLine('doctor', args, { words: false });
  return line.kind === 'run' ? runDoctor(readConfig()) : answer(line, DOCTOR_HELP);
}

export interface DoctorOptions {
  out?: NodeJS.WritableStream;
  limitMs?: number;
}

/**
 * `parallel-llm-mcp doctor`: checks the key, every model id and the output folder, all at
 * once, each within a limit, printing each check's lines as soon as it finishes.
 */
export async function runDoctor(config: Config, { out = process.stdout, limitMs = CHECK_LIMIT_MS }: DoctorOptions = {}): Promise<number> {
  const client = OpenRouterClient.fromConfig(config, createLogger({ level: 'silent' }));
  const found: Line[] = [];
  const print = (lines: Line[]) => {
    found.push(...lines);
    out.write(lines.map((line) => `${MARKS[line.level]} ${line.what}\n${line.fix ? `  fix: ${line.fix}\n` : ''}`).join(''));
  };
  const noAnswer = (what: string, fix: string, level: Level = 'unchecked'): Line => ({
    level,
    what: `no answer from ${what} within ${seconds(limitMs)}`,
    fix,
  });
  print(checkLogFile(config));
  try {
    await Promise.all([
      withinLimit(limitMs, (signal) => checkKey(client, signal), noAnswer(`${client.baseUrl}/key`, NETWORK_FIX)).then(print),
      withinLimit(limitMs, (signal) => checkModels(client, config, signal), noAnswer(`${client.baseUrl}/models`, NETWORK_FIX)).then(print),
      // A disk that hangs would hang every run's files too: that is something wrong.
      withinLimit(
        limitMs,
        () => checkOutputFolder(config),
        noAnswer(`the output folder ${config.outputDir}`, 'check the disk, or set PARALLEL_LLM_OUTPUT_DIR elsewhere', 'fail'),
      ).then(print),
    ]);
  } finally {
    await client.close();
  }
  out.write(`\n${summary(found)}\n`);
  return found.some((line) => line.level === 'fail') ? 1 : 0;
}

/** The check's lines, or `late` when it has not finished within the limit (its requests are aborted). */
async function withinLimit(limitMs: number, check: (signal: AbortSignal) => Promise<Line[]>, late: Line): Promise<Line[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<Line[]>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve([late]);
    }, limitMs);
  });
  try {
    return await Promise.race([check(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The last line: what is wrong, what passed, and what could not be checked, whenever anything could not. */
function summary(lines: Line[]): string {
  const tally = (level: Level) => lines.filter((line) => line.level === level).length;
  const warnings = tally('warn') > 0 ? ` (${count(tally('warn'), 'warning')})` : '';
  const passed = `${tally('ok') + tally('warn')} passed${warnings}`;
  const unchecked = tally('unchecked') > 0 ? `, ${tally('unchecked')} could not be checked` : '';
  if (tally('fail') > 0) return `${count(tally('fail'), 'problem')} to fix; ${passed}${unchecked}.`;
  return unchecked ? `${passed}${unchecked}.` : `All checks passed${warnings}.`;
}

async function checkKey(client: OpenRouterClient, signal: AbortSignal): Promise<Line[]> {
  try {
    const key = await fetchKeyInfo(client, signal);
    const remaining = key.limit_remaining == null ? 'no credit limit on the key' : `$${key.limit_remaining.toFixed(2)} left on the key`;
    return [{ level: 'ok', what: `OPENROUTER_API_KEY accepted${key.label ? ` ("${key.label}")` : ''}: ${remaining}` }];
  } catch (caught) {
    const error = caught as UpstreamError;
    if (error.status === 404) return [{ level: 'unchecked', what: `${client.baseUrl}/key is not available; the key was not checked` }];
    if (error.status === 401 || error.status === 403) {
      return [
        {
          level: 'fail',
          what: `OPENROUTER_API_KEY was refused by ${client.baseUrl}: ${error.message}`,
          fix: 'create a key at https://openrouter.ai/keys and put it in the env block of your MCP client config',
        },
      ];
    }
    return [{ level: 'unchecked', what: `could not check the key at ${client.baseUrl}/key: ${error.message}`, fix: NETWORK_FIX }];
  }
}

async function checkModels(client: OpenRouterClient, config: Config, signal: AbortSignal): Promise<Line[]> {
  let rows: Awaited<ReturnType<typeof fetchModels>>;
  try {
    rows = await fetchModels(client, signal);
  } catch (caught) {
    const error = caught as UpstreamError;
    if (error.status === 404)
      return [{ level: 'unchecked', what: `${client.baseUrl}/models is not available; the model ids were not checked` }];
    return [
      {
        level: 'unchecked',
        what: `could not list models at ${client.baseUrl}/models: ${error.message}; the model ids were not checked`,
        fix: NETWORK_FIX,
      },
    ];
  }
  return configuredModels(config).map((configured) => describe(configured, judgeModel(configured.model, rows), client.baseUrl));
}

interface Configured {
  model: string;
  role: string;
  variable: string;
}

/** Each configured id once, with the role it plays and the variable that sets it. */
function configuredModels(config: Config): Configured[] {
  return [...new Set([...config.models, ...config.synthesizerModels])].map((model) => {
    const candidate = config.models.includes(model);
    const synthesizer = config.synthesizerModels.includes(model);
    if (candidate && synthesizer)
      return { model, role: 'candidate and synthesizer', variable: 'PARALLEL_LLM_MODELS and PARALLEL_LLM_SYNTHESIZER_MODEL' };
    return synthesizer
      ? { model, role: 'synthesizer', variable: 'PARALLEL_LLM_SYNTHESIZER_MODEL' }
      : { model, role: 'candidate', variable: 'PARALLEL_LLM_MODELS' };
  });
}

function describe({ model, role, variable }: Configured, verdict: ModelVerdict, baseUrl: string): Line {
  switch (verdict.status) {
    case 'listed':
      return { level: 'ok', what: `${role} model ${model} exists${listedAs(verdict)}` };
    case 'unchecked_alias':
      return {
        level: 'unchecked',
        what: `${role} model ${model} is an alias, which ${baseUrl}/models does not list (it lists no aliases): it was not checked`,
      };
    case 'expiring':
      return {
        level: 'warn',
        what: `${role} model ${model} exists, but OpenRouter may remove it after ${verdict.date}`,
        fix: `replace it in ${variable}${nearest(verdict.suggestions)}`,
      };
    case 'gone':
      return {
        level: 'fail',
        what: `${role} model ${model} is not offered by ${baseUrl}: retired, or mistyped`,
        fix: `correct ${variable}${nearest(verdict.suggestions)}`,
      };
  }
}

/** " (the :nitro variant of x, an alias, now y)": how a listed id was found. */
function listedAs(verdict: { aliasOf?: string; variantOf?: string }): string {
  const variant = verdict.variantOf && `a variant of ${verdict.variantOf}`;
  const alias = verdict.aliasOf && `an alias, now ${verdict.aliasOf}`;
  const parts = [variant, alias].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

const nearest = (ids: string[]) => (ids.length > 0 ? `; nearest current ids: ${ids.join(', ')}` : '; see https://openrouter.ai/models');

/** The log file opens as the server would open it (created if missing); no line when there is none. */
function checkLogFile(config: Config): Line[] {
  if (!config.logFile) return [];
  try {
    closeSync(openLogFile(config.logFile));
    return [{ level: 'ok', what: `logs also go to ${config.logFile}` }];
  } catch (caught) {
    if (!(caught instanceof ConfigError)) throw caught;
    return [{ level: 'fail', what: caught.message, fix: 'set PARALLEL_LLM_LOG_FILE to a file you can write, or unset it' }];
  }
}

async function checkOutputFolder(config: Config): Promise<Line[]> {
  if (!config.saveOutputs) return [{ level: 'ok', what: 'saving runs is off (PARALLEL_LLM_SAVE_OUTPUTS=false)' }];
  try {
    const store = new RunStore(config.outputDir);
    const probe = await store.createRun();
    await probe.write('probe.txt', 'ok');
    // Removes only the probe file and the new folder, never anything else.
    await probe.discard();
    return [{ level: 'ok', what: `runs are saved in ${config.outputDir}` }];
  } catch (caught) {
    return [
      {
        level: 'fail',
        what: `cannot write runs to ${config.outputDir}: ${(caught as Error).message}`,
        fix: 'set PARALLEL_LLM_OUTPUT_DIR to a folder you can write to, or PARALLEL_LLM_SAVE_OUTPUTS=false',
      },
    ];
  }
}
