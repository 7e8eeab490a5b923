import type { Config } from '../config.js';
import type { UpstreamError } from '../errors.js';
import { createLogger } from '../logger.js';
import { fetchKeyInfo, fetchModelIds } from '../openrouter/catalog.js';
import { OpenRouterClient } from '../openrouter/client.js';
import { RunStore } from '../run-store.js';

interface Check {
  ok: boolean;
  what: string;
  /** How to fix it, for a failed check. */
  fix?: string;
}

/** `parallel-llm-mcp doctor`: checks the key, every model id and the output folder. */
export async function runDoctor(config: Config): Promise<number> {
  const logger = createLogger({ level: 'silent' });
  const client = OpenRouterClient.fromConfig(config, logger);
  try {
    const checks = [await checkKey(client), ...(await checkModels(client, config)), await checkOutputFolder(config)];
    for (const check of checks) {
      process.stdout.write(`${check.ok ? '✔' : '✘'} ${check.what}\n${check.fix ? `  fix: ${check.fix}\n` : ''}`);
    }
    const problems = checks.filter((check) => !check.ok).length;
    process.stdout.write(problems === 0 ? '\nAll checks passed.\n' : `\n${problems} problem(s) found.\n`);
    return problems === 0 ? 0 : 1;
  } finally {
    await client.close();
  }
}

async function checkKey(client: OpenRouterClient): Promise<Check> {
  try {
    const key = await fetchKeyInfo(client);
    const remaining = key.limit_remaining == null ? 'no credit limit on the key' : `$${key.limit_remaining.toFixed(2)} left on the key`;
    return { ok: true, what: `OPENROUTER_API_KEY accepted${key.label ? ` ("${key.label}")` : ''}: ${remaining}` };
  } catch (caught) {
    const error = caught as UpstreamError;
    if (error.status === 401 || error.status === 403) {
      return {
        ok: false,
        what: `OPENROUTER_API_KEY was refused by ${client.baseUrl}: ${error.message}`,
        fix: 'create a key at https://openrouter.ai/keys and put it in the env block of your MCP client config',
      };
    }
    return { ok: false, what: `could not check the key at ${client.baseUrl}/key: ${error.message}`, fix: 'check the network and OPENROUTER_BASE_URL' };
  }
}

async function checkModels(client: OpenRouterClient, config: Config): Promise<Check[]> {
  const wanted = [...new Set([...config.models, ...config.synthesizerModels])];
  let known: Set<string>;
  try {
    known = await fetchModelIds(client);
  } catch (caught) {
    return [{ ok: false, what: `could not list models at ${client.baseUrl}/models: ${(caught as Error).message}`, fix: 'check the network and OPENROUTER_BASE_URL' }];
  }
  return wanted.map((model) => {
    const role = config.synthesizerModels.includes(model) ? 'synthesizer' : 'candidate';
    if (known.has(model)) return { ok: true, what: `${role} model ${model} exists` };
    const suggestions = similar(model, known);
    const variable = role === 'synthesizer' ? 'PARALLEL_LLM_SYNTHESIZER_MODEL' : 'PARALLEL_LLM_MODELS';
    return {
      ok: false,
      what: `${role} model ${model} is not offered by ${client.baseUrl}`,
      fix: `correct ${variable}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : '; see https://openrouter.ai/models'}`,
    };
  });
}

/** The known ids closest to a mistyped one, by edit distance, a few at most. */
export function similar(model: string, known: Set<string>): string[] {
  const tolerance = Math.max(2, Math.round(model.length * 0.2));
  return [...known]
    .map((id) => ({ id, distance: editDistance(model, id) }))
    .filter(({ distance }) => distance <= tolerance)
    .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id))
    .slice(0, 3)
    .map(({ id }) => id);
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

async function checkOutputFolder(config: Config): Promise<Check> {
  if (!config.saveOutputs) return { ok: true, what: 'saving runs is off (PARALLEL_LLM_SAVE_OUTPUTS=false)' };
  try {
    const store = new RunStore(config.outputDir);
    const probe = await store.createRun();
    await probe.write('probe.txt', 'ok');
    // Removes only the probe file and the new folder, never anything else.
    await probe.discard();
    return { ok: true, what: `runs are saved in ${config.outputDir}` };
  } catch (caught) {
    return {
      ok: false,
      what: `cannot write runs to ${config.outputDir}: ${(caught as Error).message}`,
      fix: 'set PARALLEL_LLM_OUTPUT_DIR to a folder you can write to, or PARALLEL_LLM_SAVE_OUTPUTS=false',
    };
  }
}
