import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputShape } from '../../src/present/output-schema.js';
import { projectRoot } from '../support/install.js';
import { modelRow, startCatalogServer } from '../support/catalog-server.js';
import { startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { binPath, finished, runBin, spawnBin, startE2eFake, userEnv, waitFor, without } from './support.js';

const nonEmptyLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

let fake: FakeOpenRouter;

beforeAll(async () => {
  fake = await startE2eFake();
});
afterAll(async () => {
  await fake.close();
});

describe('ask', () => {
  it('prints the synthesized answer alone on stdout, plain progress per model, the first line and the run folder on stderr, and exits 0', async () => {
    const outputDir = await tempDir();
    const result = await runBin(['ask', 'What is 2+2?'], userEnv(fake, outputDir));

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 4.\n');

    // stderr is a pipe here, so progress is plain lines: no cursor movement, one line per event.
    expect(result.stderr).not.toContain('\x1b');
    const lines = nonEmptyLines(result.stderr);
    for (const model of ['e2e/one', 'e2e/two', 'e2e/three']) {
      const progress = lines.filter((line) => line.includes(`✔ ${model} answered in`));
      expect(progress, model).toHaveLength(1);
      expect(progress[0]).toMatch(/^\[\s*\d+\.\d s\] ✔ /);
    }
    expect(lines.filter((line) => line.includes('… e2e/synth synthesizing 3 answers'))).toHaveLength(1);
    expect(lines.filter((line) => /^\[\s*\d+\.\d s\] ✔ e2e\/synth synthesized in \d+\.\d s$/.test(line))).toHaveLength(1);

    expect(lines).toContain('All 3 models answered; synthesized by e2e/synth. Cost $0.0060.');
    const last = lines.at(-1)!;
    expect(last).toMatch(/^Run \S+, saved in /);
    const runFolder = last.replace(/^Run \S+, saved in /, '');
    expect(path.dirname(runFolder)).toBe(outputDir);
    expect(await readFile(path.join(runFolder, 'final.md'), 'utf8')).toBe('The answer is 4.');
  });

  it('reads the prompt from stdin when no prompt argument is given', async () => {
    fake.on('e2e/stdin', { answer: 'from stdin', delayMs: 10 });
    const prompt = 'A prompt piped on stdin,\nover two lines.';
    const result = await runBin(['ask'], userEnv(fake, await tempDir(), { PARALLEL_LLM_MODELS: 'e2e/stdin' }), prompt);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 4.\n');
    const request = fake.requestsFor('e2e/stdin').at(-1)!;
    expect(request.body.messages).toEqual([{ role: 'user', content: prompt }]);
  });

  it("exits 1 when every model is refused (401), with each model's error on stderr and nothing on stdout", async () => {
    const result = await runBin(['ask', 'q'], userEnv(fake, await tempDir(), { OPENROUTER_API_KEY: 'sk-wrong' }));

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No model answered: e2e/one failed: HTTP 401: User not found;');
    for (const model of ['e2e/one', 'e2e/two', 'e2e/three']) {
      expect(result.stderr).toContain(`- ${model}: http 401: User not found.`);
    }
    expect(result.stderr).not.toContain('sk-wrong');
  });

  it('exits 1 when every model is unavailable (503), naming each model with its own OpenRouter message', async () => {
    const models = ['e2e/down-a', 'e2e/down-b'];
    for (const model of models) {
      fake.on(model, { status: 503, error: { code: 503, message: `No endpoints found for ${model}` }, headers: { 'retry-after': '0' } });
    }
    const env = userEnv(fake, await tempDir(), { PARALLEL_LLM_MODELS: models.join(','), PARALLEL_LLM_MAX_RETRIES: '0' });
    const synthesized = fake.requestsFor('e2e/synth').length;
    const result = await runBin(['ask', 'q'], env);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    for (const model of models) expect(result.stderr).toContain(`- ${model}: http 503: No endpoints found for ${model}.`);
    expect(fake.requestsFor('e2e/synth')).toHaveLength(synthesized);
  });

  it.each([
    ['a blank argument', ['ask', '   '], ''],
    ['an empty stdin', ['ask'], ''],
    ['a stdin of whitespace', ['ask'], ' \n\t\n'],
  ])('exits 2 with a message saying how to give a prompt, and calls no model, for %s', async (_name, args, input) => {
    const before = fake.requests.length;
    const result = await runBin(args, userEnv(fake, await tempDir()), input);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('parallel-llm-mcp: give a prompt: parallel-llm-mcp ask "your question", or pipe it on stdin\n');
    expect(fake.requests.length).toBe(before);
  });
});

describe('ask with the per-call settings of process_prompt as flags', () => {
  it('asks the --models, with --temperature and --max-tokens, and falls over along the --synthesizer list', async () => {
    fake.on('e2e/flag-a', { answer: 'a', delayMs: 10 });
    fake.on('e2e/flag-b', { answer: 'b', delayMs: 10 });
    fake.on('e2e/flag-down', { status: 400, error: { code: 400, message: 'e2e/flag-down is not a valid model ID' } });
    fake.on('e2e/flag-synth', { answer: 'merged by the second synthesizer' });
    const configured = fake.requestsFor('e2e/one').length;
    const args = [
      'ask',
      '--models',
      'e2e/flag-a,e2e/flag-b',
      '--synthesizer=e2e/flag-down,e2e/flag-synth',
      '--temperature',
      '0.25',
      '--max-tokens',
      '321',
      'flags?',
    ];
    const result = await runBin(args, userEnv(fake, await tempDir()));

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('merged by the second synthesizer\n');
    for (const model of ['e2e/flag-a', 'e2e/flag-b', 'e2e/flag-down', 'e2e/flag-synth']) {
      expect(fake.requestsFor(model).at(-1)!.body, model).toMatchObject({ temperature: 0.25, max_tokens: 321 });
    }
    expect(fake.requestsFor('e2e/one')).toHaveLength(configured);
  });

  it('returns the same run for the same request at no cost, and asks anew with --fresh', async () => {
    fake.on('e2e/fresh', { answer: 'fresh', delayMs: 10 });
    const env = userEnv(fake, await tempDir(), { PARALLEL_LLM_MODELS: 'e2e/fresh' });
    await runBin(['ask', 'the same question'], env);
    await runBin(['ask', 'the same question'], env);
    expect(fake.requestsFor('e2e/fresh')).toHaveLength(1);
    const fresh = await runBin(['ask', '--fresh', 'the same question'], env);
    expect(fresh.code).toBe(0);
    expect(fake.requestsFor('e2e/fresh')).toHaveLength(2);
  });

  it("prints with --json the structured result, the shape of process_prompt's structuredContent with the answer, alone on stdout", async () => {
    const result = await runBin(['ask', '--json', 'What is 2+2?'], userEnv(fake, await tempDir()));

    expect(result.code).toBe(0);
    const structured = z.object(outputShape).strict().parse(JSON.parse(result.stdout));
    expect(structured).toMatchObject({ status: 'complete', answer: 'The answer is 4.', answers_in: 'structured_content', joined: 'new' });
    expect(structured.models.map((model) => model.model)).toEqual(['e2e/one', 'e2e/two', 'e2e/three']);
    expect(result.stderr).toContain('All 3 models answered; synthesized by e2e/synth.');
  });

  it.each([
    [['--temperature', 'warm'], '--temperature must be a number (got "warm")'],
    [['--max-tokens', '0'], '--max-tokens "0": max_tokens must be between 1 and 1000000'],
    [['--fresh=yes'], '--fresh takes no value'],
  ])('refuses %j with one line naming it, exit 2, and no model asked', async (flags, message) => {
    const before = fake.requests.length;
    const result = await runBin(['ask', ...flags, 'q'], userEnv(fake, await tempDir()));

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`parallel-llm-mcp ask: ${message}; see parallel-llm-mcp ask --help\n`);
    expect(fake.requests.length).toBe(before);
  });
});

describe('doctor', () => {
  const known = ['openai/gpt-5-codex', 'x-ai/grok-4-fast', 'google/gemini-2.5-pro', 'z-ai/glm-4.6'];
  let catalogue: FakeOpenRouter;
  const doctorEnv = async (extra: Record<string, string> = {}) =>
    userEnv(catalogue, await tempDir(), {
      PARALLEL_LLM_MODELS: 'openai/gpt-5-codex,x-ai/grok-4-fast,z-ai/glm-4.6',
      PARALLEL_LLM_SYNTHESIZER_MODEL: 'google/gemini-2.5-pro',
      ...extra,
    });

  beforeAll(async () => {
    catalogue = await startFakeOpenRouter({ models: known });
  });
  afterAll(async () => {
    await catalogue.close();
  });

  it('exits 0 and says all checks passed when the key is valid, every model id is known and the folder is writable', async () => {
    const result = await runBin(['doctor'], await doctorEnv());

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('All checks passed.');
    expect(result.stdout).not.toContain('✘');
    for (const model of ['openai/gpt-5-codex', 'x-ai/grok-4-fast', 'z-ai/glm-4.6', 'google/gemini-2.5-pro']) {
      expect(result.stdout).toMatch(new RegExp(`✔ (candidate|synthesizer) model ${model.replace(/[.]/g, '\\.')} exists`));
    }
  });

  it('asks no model anything: checking a setup costs nothing', async () => {
    const result = await runBin(['doctor'], await doctorEnv());

    expect(result.code).toBe(0);
    expect(catalogue.requests).toHaveLength(0);
  });

  it('exits 1 on a refused key, naming OPENROUTER_API_KEY and how to fix it, without echoing the key', async () => {
    const result = await runBin(['doctor'], await doctorEnv({ OPENROUTER_API_KEY: 'sk-wrong' }));

    expect(result.code).toBe(1);
    const line = nonEmptyLines(result.stdout).findIndex((text) => text.startsWith('✘') && text.includes('OPENROUTER_API_KEY'));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(nonEmptyLines(result.stdout)[line + 1]).toMatch(/^\s+fix: .*https:\/\/openrouter\.ai\/keys/);
    expect(result.stdout).toContain('1 problem to fix; 5 passed.');
    expect(result.stdout + result.stderr).not.toContain('sk-wrong');
  });

  it('exits 1 on an unknown model id in PARALLEL_LLM_MODELS, naming it and suggesting the close match', async () => {
    const result = await runBin(['doctor'], await doctorEnv({ PARALLEL_LLM_MODELS: 'openai/gpt-5-codx,x-ai/grok-4-fast' }));

    expect(result.code).toBe(1);
    const lines = nonEmptyLines(result.stdout);
    const line = lines.findIndex((text) => text.startsWith('✘') && text.includes('openai/gpt-5-codx'));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(lines[line + 1]).toContain('PARALLEL_LLM_MODELS');
    expect(lines[line + 1]).toMatch(/nearest current ids: openai\/gpt-5-codex\b/);
    expect(result.stdout).toContain('✔ candidate model x-ai/grok-4-fast exists');
  });

  it('points to the model list when an unknown model id has no close match', async () => {
    const result = await runBin(['doctor'], await doctorEnv({ PARALLEL_LLM_MODELS: 'acme/nothing-like-it' }));

    expect(result.code).toBe(1);
    const lines = nonEmptyLines(result.stdout);
    const line = lines.findIndex((text) => text.startsWith('✘') && text.includes('acme/nothing-like-it'));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(lines[line + 1]).not.toContain('nearest current ids');
    expect(lines[line + 1]).toContain('https://openrouter.ai/models');
  });

  it('names a retired id and an expiring one, suggesting the current successor of each', async () => {
    const server = await startCatalogServer({
      key: { label: 'test key', limit_remaining: 3 },
      models: [
        modelRow('~x-ai/grok-latest', { alias_target: 'x-ai/grok-4.3' }),
        modelRow('x-ai/grok-4.1-fast', { created: '2025-11-19' }),
        modelRow('x-ai/grok-4.3', { created: '2026-05-01' }),
        modelRow('openai/gpt-5.1-codex', { created: '2025-11-13', expiration_date: '2026-07-15' }),
        modelRow('openai/gpt-5.3-codex', { created: '2026-02-05' }),
        modelRow('~google/gemini-pro-latest', { alias_target: 'google/gemini-3.1-pro-preview' }),
      ],
    });
    try {
      const env = userEnv(fake, await tempDir(), {
        OPENROUTER_BASE_URL: server.url,
        PARALLEL_LLM_MODELS: 'x-ai/grok-4-fast,openai/gpt-5.1-codex',
        PARALLEL_LLM_SYNTHESIZER_MODEL: '~google/gemini-pro-latest',
      });
      const result = await runBin(['doctor'], env);

      expect(result.code).toBe(1);
      const lines = nonEmptyLines(result.stdout);
      const retired = lines.findIndex((text) => text.startsWith('✘ candidate model x-ai/grok-4-fast is not offered'));
      expect(lines[retired + 1]).toMatch(/^\s+fix: correct PARALLEL_LLM_MODELS; nearest current ids: x-ai\/grok-4\.1-fast, /);
      const expiring = lines.indexOf('⚠ candidate model openai/gpt-5.1-codex exists, but OpenRouter may remove it after 2026-07-15');
      expect(lines[expiring + 1]).toMatch(/^\s+fix: replace it in PARALLEL_LLM_MODELS; nearest current ids: openai\/gpt-5\.3-codex$/);
      expect(result.stdout).toContain('✔ synthesizer model ~google/gemini-pro-latest exists (an alias, now google/gemini-3.1-pro-preview)');
      expect(result.stdout).toContain('1 problem to fix; 4 passed (1 warning).');
    } finally {
      await server.close();
    }
  });

  it('accepts variant ids (:nitro, :floor, :free, :thinking) whose base id the list shows', async () => {
    const result = await runBin(
      ['doctor'],
      await doctorEnv({
        PARALLEL_LLM_MODELS: 'openai/gpt-5-codex:nitro,x-ai/grok-4-fast:floor,z-ai/glm-4.6:free',
        PARALLEL_LLM_SYNTHESIZER_MODEL: 'google/gemini-2.5-pro:thinking',
      }),
    );

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✔ candidate model openai/gpt-5-codex:nitro exists (a variant of openai/gpt-5-codex)');
    expect(result.stdout).toContain('All checks passed.');
  });

  it('exits 1 on an unknown synthesizer, naming PARALLEL_LLM_SYNTHESIZER_MODEL', async () => {
    const result = await runBin(['doctor'], await doctorEnv({ PARALLEL_LLM_SYNTHESIZER_MODEL: 'google/gemini-9-ultra' }));

    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✘ synthesizer model google/gemini-9-ultra');
    expect(result.stdout).toContain('PARALLEL_LLM_SYNTHESIZER_MODEL');
  });

  it('exits 1 when the output folder cannot be created (a path under a regular file), with a fix', async () => {
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, 'not a folder');
    const unwritable = path.join(file, 'runs');
    const result = await runBin(['doctor'], await doctorEnv({ PARALLEL_LLM_OUTPUT_DIR: unwritable }));

    expect(result.code).toBe(1);
    const lines = nonEmptyLines(result.stdout);
    const line = lines.findIndex((text) => text.startsWith('✘') && text.includes(unwritable));
    expect(line).toBeGreaterThanOrEqual(0);
    expect(lines[line + 1]).toMatch(/^\s+fix: .*PARALLEL_LLM_OUTPUT_DIR/);
    expect(existsSync(unwritable)).toBe(false);
  });

  it('leaves no run folder behind after probing the output folder', async () => {
    const outputDir = await tempDir();
    const result = await runBin(['doctor'], { ...(await doctorEnv()), PARALLEL_LLM_OUTPUT_DIR: outputDir });

    expect(result.code).toBe(0);
    expect((await readdir(outputDir)).filter((name) => !name.startsWith('.'))).toEqual([]);
  });
});

describe('help, version and unknown commands', () => {
  it('lists ask and doctor under --help, and names the README that came with the package, on stdout, exiting 0 even without a key', async () => {
    const result = await runBin(['--help'], without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY'));

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^\s+parallel-llm-mcp ask /m);
    expect(result.stdout).toMatch(/^\s+parallel-llm-mcp doctor /m);
    const readme = /the README: (\S+)$/m.exec(result.stdout)![1]!;
    expect(readFileSync(readme, 'utf8')).toMatch(/^# parallel-llm-mcp\n/);
  });

  it("prints package.json's version under --version, exiting 0 even without a key", async () => {
    const { version } = JSON.parse(await readFile(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    const result = await runBin(['--version'], without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY'));

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.stderr).toBe('');
  });

  it.each([
    [['ask', '--help'], 'Usage: parallel-llm-mcp ask'],
    [['ask', '-h'], 'Usage: parallel-llm-mcp ask'],
    [['doctor', '--help'], 'Usage: parallel-llm-mcp doctor'],
  ])('prints the help of %j on stdout and exits 0, without a key and without asking any model', async (args, usage) => {
    const before = fake.requests.length;
    const result = await runBin(args, without(userEnv(fake, await tempDir()), 'OPENROUTER_API_KEY'));

    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(usage)).toBe(true);
    expect(result.stderr).toBe('');
    expect(fake.requests.length).toBe(before);
  });

  it.each([
    [['ask', '--frobnicate', 'q'], '"--frobnicate"'],
    [['doctor', '--verbose'], '"--verbose"'],
    [['doctor', 'now'], '"now"'],
  ])('refuses %j with one line on stderr and exit 2, asking no model', async (args, named) => {
    const before = fake.requests.length;
    const result = await runBin(args, userEnv(fake, await tempDir()));

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(nonEmptyLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain(named);
    expect(fake.requests.length).toBe(before);
  });

  it('sends a prompt that begins with a dash when it follows --', async () => {
    fake.on('e2e/dash', { answer: 'a flag', delayMs: 10 });
    const result = await runBin(['ask', '--', '--help'], userEnv(fake, await tempDir(), { PARALLEL_LLM_MODELS: 'e2e/dash' }));

    expect(result.code).toBe(0);
    expect(fake.requestsFor('e2e/dash').at(-1)!.body.messages).toEqual([{ role: 'user', content: '--help' }]);
  });

  it.each([['frobnicate'], ['--frobnicate']])(
    'exits 2 on the unknown command %s, with a message on stderr and nothing on stdout',
    async (command) => {
      const result = await runBin([command], userEnv(fake, await tempDir()));

      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`"${command}"`);
      expect(result.stderr).toContain('--help');
    },
  );
});

/** `script` (util-linux) runs the command on a pseudo-terminal, so stderr is a TTY. */
const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * What a terminal `columns` wide shows for `output`: enough of a VT100 for the board (newline,
 * carriage return, erase line, cursor up), wrapping text at the right edge as terminals do.
 */
function screen(output: string, columns = Infinity): string[] {
  const rows: string[] = [''];
  let row = 0;
  let col = 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a terminal's escape sequences start with ESC.
  const pattern = /\x1b\[(\d*)([A-Za-z])|\r|\n|[^\x1b\r\n]/gu;
  const newLine = () => {
    row++;
    col = 0;
    while (rows.length <= row) rows.push('');
  };
  for (const match of output.matchAll(pattern)) {
    const [token, count, command] = match;
    if (token === '\n') {
      newLine();
    } else if (token === '\r') {
      col = 0;
    } else if (command === 'A') {
      row = Math.max(0, row - Number(count || 1));
    } else if (command === 'K') {
      rows[row] = '';
    } else if (command === undefined) {
      if (col >= columns) newLine();
      const line = Array.from(rows[row]!.padEnd(col));
      line[col] = token;
      rows[row] = line.join('');
      col++;
    }
  }
  return rows;
}

/** Runs the bin under `script`, so stdin, stdout and stderr are a terminal `columns` wide (when given). */
function onTerminal(args: string, env: Record<string, string>, columns?: number) {
  const resize = columns ? `stty cols ${columns} rows 24; ` : '';
  const child = spawn('script', ['-qfec', `${resize}exec '${binPath()}' ${args}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // A command that waits for terminal input would otherwise outlive the test.
  const timer = setTimeout(() => child.kill(), 20_000);
  return finished(child).finally(() => clearTimeout(timer));
}

describe.skipIf(!hasScript)('ask on a terminal', () => {
  it('keeps one live line per model, redrawn in place, each ending in its outcome', async () => {
    const result = await onTerminal(`ask 'What is 2+2?'`, userEnv(fake, await tempDir()));

    expect(result.code).toBe(0);
    const output = result.stdout;
    expect(output).toContain('\x1b[4A');
    // The board as it stands when the result is printed.
    const board = screen(output.slice(0, output.indexOf('All 3 models answered'))).filter((row) => row.trim() !== '');
    expect(board).toHaveLength(4);
    expect(board[0]).toMatch(/^ {2}✔ e2e\/one answered in \d+\.\d s$/);
    expect(board[1]).toMatch(/^ {2}✔ e2e\/two answered in \d+\.\d s$/);
    expect(board[2]).toMatch(/^ {2}✔ e2e\/three answered in \d+\.\d s$/);
    expect(board[3]).toMatch(/^ {2}✔ e2e\/synth synthesized in \d+\.\d s$/);
    // While waiting, each model had a line of its own saying so.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the board erases a line with ESC [2K.
    expect(output).toMatch(/\x1b\[2K {2}… e2e\/three waiting \(\d+\.\d s\)/);
  });

  it('fits every line of the board to a narrow terminal, so the redraw stays in place', async () => {
    const result = await onTerminal(`ask 'What is 2+2?'`, userEnv(fake, await tempDir()), 24);

    expect(result.code).toBe(0);
    const output = result.stdout;
    const board = screen(output.slice(0, output.indexOf('All 3 models answered')), 24).filter((row) => row.trim() !== '');
    expect(board).toHaveLength(4);
    for (const row of board) expect(Array.from(row).length).toBeLessThan(24);
    expect(board[0]).toBe('  ✔ e2e/one answered i…');
    expect(board[3]).toBe('  ✔ e2e/synth synthesi…');
  });

  it('prints how to use ask, and exits 2 at once, when no prompt is given and stdin is a terminal', async () => {
    const before = fake.requests.length;
    const result = await onTerminal('ask', userEnv(fake, await tempDir()));

    expect(result.code).toBe(2);
    expect(result.stdout).toContain('give a prompt');
    expect(result.stdout).toContain('Usage: parallel-llm-mcp ask');
    expect(fake.requests.length).toBe(before);
  });
});

describe.skipIf(!hasScript)('the server started by hand in a terminal', () => {
  it('says on stderr, in one human line, what it is and to try ask, doctor and the README, then answers JSON-RPC on stdout as usual', async () => {
    const stderrFile = path.join(await tempDir(), 'stderr');
    // stdin and stdout are the terminal (without echo, so stdout shows only what the server writes); stderr goes to a file.
    const child = spawn('script', ['-qfec', `stty -echo; exec '${binPath()}' 2>'${stderrFile}'`, '/dev/null'], {
      env: userEnv(fake, await tempDir()),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = finished(child);
    const stderr = () => readFile(stderrFile, 'utf8').catch(() => '');
    await waitFor(async () => (await stderr()).includes('\n'));
    const [greeting, ...rest] = (await stderr()).split('\n');
    expect(greeting).toMatch(/^parallel-llm-mcp \S+ is an MCP server: /);
    expect(greeting).toContain('parallel-llm-mcp ask "your question"');
    expect(greeting).toContain('parallel-llm-mcp doctor');
    expect(readFileSync(/see (\S+) to add it to a client/.exec(greeting!)![1]!, 'utf8')).toMatch(/^# parallel-llm-mcp\n/);
    expect(
      rest.every((line) => line === '' || line.startsWith('{')),
      'the other stderr lines are JSON logs',
    ).toBe(true);

    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tty', version: '1' } } })}\n`,
    );
    await waitFor(() => stdout.includes('\n'));
    const lines = stdout.split(/\r?\n/).filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'parallel-llm-server' } } });
    child.kill('SIGTERM');
    await exited;
  });

  it('says nothing of the kind when stdin is a pipe, as when an MCP client starts it', async () => {
    const child = spawnBin([], userEnv(fake, await tempDir()));
    const exited = finished(child);
    child.stdin.end();
    expect((await exited).stderr).not.toContain('is an MCP server');
  });
});
