import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ConfigError, MAX_PROMPT_CHARS_CEILING, defaultOutputDir, loadConfig } from '../src/config/config.js';

const KEY = 'sk-or-v1-test-key-0123456789';
const withKey = (env: Record<string, string> = {}): NodeJS.ProcessEnv => ({ OPENROUTER_API_KEY: KEY, ...env });

/** The ConfigError that loadConfig throws for `env`, failing the test when it throws none. */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig: defaults', () => {
  const config = loadConfig(withKey());

  it('asks the original’s five vendors, in the original’s order, on ids that follow new releases', () => {
    expect(config.models).toEqual([
      '~openai/gpt-latest',
      '~x-ai/grok-latest',
      'mistralai/mistral-medium-3-5',
      '~google/gemini-pro-latest',
      '~z-ai/glm-latest',
    ]);
  });

  it('synthesizes with Gemini Pro, then Claude Sonnet when Gemini fails, at temperature 0.7', () => {
    expect(config.synthesizerModels).toEqual(['~google/gemini-pro-latest', '~anthropic/claude-sonnet-latest']);
    expect(config.temperature).toBe(0.7);
  });

  it('uses the documented limits: concurrency 5, timeout 240000 ms, prompts up to 500000 characters', () => {
    expect(config.maxConcurrency).toBe(5);
    expect(config.timeoutMs).toBe(240_000);
    expect(config.maxPromptChars).toBe(500_000);
  });

  it('saves outputs, logs at info and talks to OpenRouter', () => {
    expect(config.saveOutputs).toBe(true);
    expect(config.logLevel).toBe('info');
    expect(config.baseUrl).toBe('https://openrouter.ai/api/v1');
  });

  it('synthesizes, sets no cost ceiling and sends no reasoning effort', () => {
    expect(config.strategy).toBe('synthesize');
    expect(config.maxCostUsd).toBeUndefined();
    expect(config.reasoningEffort).toBeUndefined();
  });

  it('leaves the budget to be chosen per client and sends a positive max_tokens', () => {
    expect(config.budgetMs).toBeUndefined();
    expect(config.maxTokens).toBeGreaterThan(0);
  });

  it('keeps the key as given', () => {
    expect(config.apiKey).toBe(KEY);
  });

  it('treats blank optional variables as unset', () => {
    const blank = loadConfig(
      withKey({ PARALLEL_LLM_MODELS: '', PARALLEL_LLM_MAX_CONCURRENCY: '  ', PARALLEL_LLM_SAVE_OUTPUTS: '', PARALLEL_LLM_LOG_LEVEL: ' ' }),
    );
    expect(blank.models).toEqual(config.models);
    expect(blank.maxConcurrency).toBe(5);
    expect(blank.saveOutputs).toBe(true);
    expect(blank.logLevel).toBe('info');
  });
});

describe('loadConfig: the key', () => {
  it.each([
    ['missing', {}],
    ['empty', { OPENROUTER_API_KEY: '' }],
    ['blank', { OPENROUTER_API_KEY: '   ' }],
  ])('throws a ConfigError naming OPENROUTER_API_KEY when the key is %s', (_, env) => {
    expect(configError(env).message).toContain('OPENROUTER_API_KEY');
  });

  it('never repeats the key in an error about another variable', () => {
    const message = configError(withKey({ PARALLEL_LLM_MAX_CONCURRENCY: 'lots' })).message;
    expect(message).not.toContain(KEY);
  });
});

describe('loadConfig: bad values', () => {
  it.each([
    ['PARALLEL_LLM_MAX_CONCURRENCY', 'five'],
    ['PARALLEL_LLM_MAX_CONCURRENCY', '-1'],
    ['PARALLEL_LLM_MAX_CONCURRENCY', '0'],
    ['PARALLEL_LLM_TIMEOUT_MS', '-5'],
    ['PARALLEL_LLM_TIMEOUT_MS', '4 minutes'],
    ['PARALLEL_LLM_MAX_TOKENS', '1.5'],
    ['PARALLEL_LLM_BUDGET_MS', '-100'],
    ['PARALLEL_LLM_MAX_PROMPT_CHARS', 'abc'],
    ['PARALLEL_LLM_SYNTHESIS_MAX_CHARS', '-600000'],
    ['PARALLEL_LLM_MODELS', ' , '],
    ['PARALLEL_LLM_MODELS', ','],
    ['OPENROUTER_BASE_URL', 'not a url'],
    ['OPENROUTER_BASE_URL', 'openrouter.ai/api/v1'],
    ['OPENROUTER_BASE_URL', 'ftp://openrouter.ai/api/v1'],
    ['PARALLEL_LLM_SAVE_OUTPUTS', 'maybe'],
    ['PARALLEL_LLM_LOG_LEVEL', 'verbose'],
    ['PARALLEL_LLM_TEMPERATURE', '3'],
    ['PARALLEL_LLM_TEMPERATURE', '-0.1'],
    ['PARALLEL_LLM_TEMPERATURE', 'warm'],
    ['PARALLEL_LLM_STRATEGY', 'vote'],
    ['PARALLEL_LLM_MAX_COST_USD', '$5'],
    ['PARALLEL_LLM_MAX_COST_USD', '-1'],
    ['PARALLEL_LLM_MAX_COST_USD', '0'],
    ['PARALLEL_LLM_MAX_COST_USD', 'Infinity'],
    ['PARALLEL_LLM_REASONING_EFFORT', 'xhigh'],
  ])('refuses %s=%j with a one-line ConfigError naming the variable', (variable, value) => {
    const { message } = configError(withKey({ [variable]: value }));
    expect(message).toContain(variable);
    expect(message).not.toContain('\n');
  });
});

describe('loadConfig: accepted values', () => {
  it('trims model ids, drops empty entries and keeps repeats in order', () => {
    const config = loadConfig(withKey({ PARALLEL_LLM_MODELS: ' openai/gpt-5 ,x-ai/grok-4-fast,, openai/gpt-5 ' }));
    expect(config.models).toEqual(['openai/gpt-5', 'x-ai/grok-4-fast', 'openai/gpt-5']);
  });

  it.each([
    ['http://localhost:8080/v1/', 'http://localhost:8080/v1'],
    ['https://example.test/api/v1///', 'https://example.test/api/v1'],
    ['https://example.test/api/v1', 'https://example.test/api/v1'],
  ])('strips trailing slashes from the base URL %s', (given, expected) => {
    expect(loadConfig(withKey({ OPENROUTER_BASE_URL: given })).baseUrl).toBe(expected);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ])('reads PARALLEL_LLM_SAVE_OUTPUTS=%s as %s', (given, expected) => {
    expect(loadConfig(withKey({ PARALLEL_LLM_SAVE_OUTPUTS: given })).saveOutputs).toBe(expected);
  });

  it('reads the log level in any case', () => {
    expect(loadConfig(withKey({ PARALLEL_LLM_LOG_LEVEL: 'DEBUG' })).logLevel).toBe('debug');
  });

  it('reads numbers and the temperature bounds', () => {
    const config = loadConfig(
      withKey({
        PARALLEL_LLM_MAX_CONCURRENCY: '12',
        PARALLEL_LLM_TIMEOUT_MS: '1000',
        PARALLEL_LLM_TEMPERATURE: '2',
        PARALLEL_LLM_BUDGET_MS: '55000',
      }),
    );
    expect(config.maxConcurrency).toBe(12);
    expect(config.timeoutMs).toBe(1000);
    expect(config.temperature).toBe(2);
    expect(config.budgetMs).toBe(55_000);
    expect(loadConfig(withKey({ PARALLEL_LLM_TEMPERATURE: '0' })).temperature).toBe(0);
  });

  it('trims the synthesizer model id', () => {
    expect(loadConfig(withKey({ PARALLEL_LLM_SYNTHESIZER_MODEL: '  openai/gpt-5 ' })).synthesizerModels).toEqual(['openai/gpt-5']);
  });

  it('reads a comma-separated synthesizer list, in order', () => {
    expect(loadConfig(withKey({ PARALLEL_LLM_SYNTHESIZER_MODEL: 'google/x, openai/y,,' })).synthesizerModels).toEqual([
      'google/x',
      'openai/y',
    ]);
  });
});

describe('loadConfig: strategy, cost ceiling and reasoning effort', () => {
  it.each([
    ['judge', 'judge'],
    [' Council ', 'council'],
    ['SYNTHESIZE', 'synthesize'],
  ])('reads PARALLEL_LLM_STRATEGY=%j as %s', (given, expected) => {
    expect(loadConfig(withKey({ PARALLEL_LLM_STRATEGY: given })).strategy).toBe(expected);
  });

  it.each([
    ['0.5', 0.5],
    [' 2 ', 2],
    ['0.001', 0.001],
  ])('reads PARALLEL_LLM_MAX_COST_USD=%j as %d dollars', (given, expected) => {
    expect(loadConfig(withKey({ PARALLEL_LLM_MAX_COST_USD: given })).maxCostUsd).toBe(expected);
  });

  it.each(['minimal', 'low', 'Medium', 'HIGH'])('reads PARALLEL_LLM_REASONING_EFFORT=%j', (given) => {
    expect(loadConfig(withKey({ PARALLEL_LLM_REASONING_EFFORT: given })).reasoningEffort).toBe(given.toLowerCase());
  });

  it.each([
    [undefined, true],
    ['on', true],
    ['off', false],
    [' OFF ', false],
  ])('reads PARALLEL_LLM_AGREEMENT=%j: the account of agreement asked for, %j', (given, expected) => {
    expect(loadConfig(withKey(given === undefined ? {} : { PARALLEL_LLM_AGREEMENT: given })).agreement).toBe(expected);
  });

  it('says what a bad value should be', () => {
    expect(configError(withKey({ PARALLEL_LLM_AGREEMENT: 'no' })).message).toBe('PARALLEL_LLM_AGREEMENT must be one of on, off (got "no")');
    expect(configError(withKey({ PARALLEL_LLM_STRATEGY: 'vote' })).message).toBe(
      'PARALLEL_LLM_STRATEGY must be one of synthesize, judge, council (got "vote")',
    );
    expect(configError(withKey({ PARALLEL_LLM_MAX_COST_USD: '-1' })).message).toBe(
      'PARALLEL_LLM_MAX_COST_USD must be a positive number of US dollars, such as 0.50 (got "-1")',
    );
    expect(configError(withKey({ PARALLEL_LLM_MAX_COST_USD: '$5' })).message).toBe(
      'PARALLEL_LLM_MAX_COST_USD must be a number of US dollars, such as 0.50 (got "$5")',
    );
    expect(configError(withKey({ PARALLEL_LLM_REASONING_EFFORT: 'max' })).message).toBe(
      'PARALLEL_LLM_REASONING_EFFORT must be one of minimal, low, medium, high (got "max")',
    );
  });
});

describe('output folder', () => {
  const originalCwd = process.cwd();
  afterEach(() => process.chdir(originalCwd));

  /** The output folder as loadConfig computes it with the working directory at `cwd`. */
  const outputDirIn = (cwd: string, env: NodeJS.ProcessEnv) => {
    process.chdir(cwd);
    return loadConfig(env).outputDir;
  };

  it.each([
    ['no XDG_DATA_HOME', {}],
    ['an absolute XDG_DATA_HOME', { XDG_DATA_HOME: path.join(os.tmpdir(), 'xdg-data') }],
    ['an empty XDG_DATA_HOME', { XDG_DATA_HOME: '' }],
    ['a relative XDG_DATA_HOME, which the XDG spec says to ignore', { XDG_DATA_HOME: 'relative/data' }],
  ])('does not depend on the working directory, with %s', (_, extra) => {
    const env = withKey(extra);
    const fromRoot = outputDirIn(path.parse(originalCwd).root, env);
    const fromTmp = outputDirIn(os.tmpdir(), env);
    expect(fromRoot).toBe(fromTmp);
    expect(path.isAbsolute(fromRoot)).toBe(true);
  });

  it('uses PARALLEL_LLM_OUTPUT_DIR when it is an absolute path', () => {
    const dir = path.join(os.tmpdir(), 'my-runs');
    expect(loadConfig(withKey({ PARALLEL_LLM_OUTPUT_DIR: dir })).outputDir).toBe(dir);
  });

  it('on Linux, lies under XDG_DATA_HOME when it is set', () => {
    const dir = defaultOutputDir({ XDG_DATA_HOME: '/srv/data' }, 'linux', '/home/ada');
    expect(dir.startsWith('/srv/data/')).toBe(true);
    expect(dir).toContain('parallel-llm-mcp');
  });

  it('on Linux, lies under ~/.local/share when XDG_DATA_HOME is not set', () => {
    const dir = defaultOutputDir({}, 'linux', '/home/ada');
    expect(dir.startsWith('/home/ada/.local/share/')).toBe(true);
    expect(dir).toContain('parallel-llm-mcp');
  });

  it('on macOS, lies under ~/Library/Application Support whatever XDG_DATA_HOME says', () => {
    const dir = defaultOutputDir({ XDG_DATA_HOME: '/srv/data' }, 'darwin', '/Users/ada');
    expect(dir.startsWith('/Users/ada/Library/Application Support/')).toBe(true);
    expect(dir).toContain('parallel-llm-mcp');
  });

  it('on Windows, lies under LOCALAPPDATA when it is set', () => {
    const local = 'C:\\Users\\ada\\AppData\\Local';
    const dir = defaultOutputDir({ LOCALAPPDATA: local }, 'win32', 'C:\\Users\\ada');
    expect(dir.startsWith(local)).toBe(true);
    expect(dir).toContain('parallel-llm-mcp');
  });

  it('on Windows, lies under the home folder’s AppData\\Local when LOCALAPPDATA is not set', () => {
    const dir = defaultOutputDir({}, 'win32', 'C:\\Users\\ada');
    expect(dir.startsWith('C:\\Users\\ada')).toBe(true);
    expect(dir).toMatch(/AppData[\\/]Local/);
    expect(dir).toContain('parallel-llm-mcp');
  });

  it.each([
    ['linux', { XDG_DATA_HOME: '' }, '/home/ada'],
    ['win32', { LOCALAPPDATA: '' }, 'C:\\Users\\ada'],
  ] as const)('on %s, treats an empty data-folder variable as unset and stays under the home folder', (platform, env, home) => {
    const dir = defaultOutputDir(env, platform, home);
    expect(dir.startsWith(home)).toBe(true);
    expect(dir).toContain('parallel-llm-mcp');
  });
});

describe('settings a user writes by hand', () => {
  it('refuses a relative PARALLEL_LLM_OUTPUT_DIR, which would depend on where the client starts the server', () => {
    expect(() => loadConfig(withKey({ PARALLEL_LLM_OUTPUT_DIR: 'runs' }))).toThrow(
      /^PARALLEL_LLM_OUTPUT_DIR must be an absolute path \(got "runs"\)$/,
    );
  });

  it.each(['TRUE', 'False', ' no '])('reads PARALLEL_LLM_SAVE_OUTPUTS=%j whatever its case and spacing', (value) => {
    expect(loadConfig(withKey({ PARALLEL_LLM_SAVE_OUTPUTS: value })).saveOutputs).toBe(value.trim().toLowerCase() === 'true');
  });

  it('gives each config its own model list, so changing one never changes the defaults', () => {
    const first = loadConfig(withKey());
    first.models.push('mutated/model');
    expect(loadConfig(withKey()).models).not.toContain('mutated/model');
  });
});

describe('settings that would break calls later are refused at start', () => {
  it('trims a key pasted with a trailing line break', () => {
    expect(loadConfig(withKey({ OPENROUTER_API_KEY: `${KEY}\n` })).apiKey).toBe(KEY);
  });

  it('refuses a key with a space inside, naming OPENROUTER_API_KEY without echoing it', () => {
    expect(() => loadConfig(withKey({ OPENROUTER_API_KEY: 'sk-or-v1 abc' }))).toThrow(
      /^OPENROUTER_API_KEY contains spaces or control characters: paste the key again$/,
    );
  });

  it.each(['PARALLEL_LLM_BUDGET_MS', 'PARALLEL_LLM_TIMEOUT_MS', 'PARALLEL_LLM_IDLE_TIMEOUT_MS'])(
    'refuses %s beyond what a timer can hold, which would fire at once',
    (variable) => {
      expect(() => loadConfig(withKey({ [variable]: '10000000000' }))).toThrow(new RegExp(`^${variable} must be at most 2147483647`));
    },
  );

  it('refuses a synthesis limit that leaves no room beyond the longest prompt', () => {
    expect(() => loadConfig(withKey({ PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '100000', PARALLEL_LLM_MAX_PROMPT_CHARS: '90000' }))).toThrow(
      /^PARALLEL_LLM_SYNTHESIS_MAX_CHARS \(100000\) must exceed PARALLEL_LLM_MAX_PROMPT_CHARS \(90000\) by at least 20000/,
    );
    expect(
      loadConfig(withKey({ PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '100000', PARALLEL_LLM_MAX_PROMPT_CHARS: '80000' })).synthesisMaxChars,
    ).toBe(100_000);
  });
});

describe('loadConfig: the prompt limit fits the stdio transport', () => {
  it('derives the prompt limit from PARALLEL_LLM_SYNTHESIS_MAX_CHARS set alone, instead of refusing to start', () => {
    expect(loadConfig(withKey({ PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '200000' }))).toMatchObject({
      synthesisMaxChars: 200_000,
      maxPromptChars: 180_000,
    });
    expect(loadConfig(withKey({ PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '2000000' })).maxPromptChars).toBe(500_000);
  });

  it('refuses a synthesis bound that leaves no room for any prompt', () => {
    expect(configError(withKey({ PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '20000' })).message).toMatch(
      /^PARALLEL_LLM_SYNTHESIS_MAX_CHARS must be at least 20001/,
    );
  });

  it('refuses a prompt limit larger than one message of the stdio transport can carry', () => {
    const env = withKey({
      PARALLEL_LLM_MAX_PROMPT_CHARS: String(MAX_PROMPT_CHARS_CEILING + 1),
      PARALLEL_LLM_SYNTHESIS_MAX_CHARS: '5000000',
    });
    expect(configError(env).message).toMatch(
      new RegExp(`^PARALLEL_LLM_MAX_PROMPT_CHARS must be at most ${MAX_PROMPT_CHARS_CEILING}: .*MCP stdio transport`),
    );
    expect(loadConfig({ ...env, PARALLEL_LLM_MAX_PROMPT_CHARS: String(MAX_PROMPT_CHARS_CEILING) }).maxPromptChars).toBe(
      MAX_PROMPT_CHARS_CEILING,
    );
  });

  it('lets the SDK’s stdio reader take a prompt at the ceiling even when every character escapes to 6 bytes', () => {
    const prompt = '\u0001'.repeat(MAX_PROMPT_CHARS_CEILING);
    const message = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'process_prompt', arguments: { prompt, models: ['x'.repeat(200)] } },
    };
    const line = Buffer.from(`${JSON.stringify(message)}\n`);
    expect(line.length).toBeGreaterThan(6 * MAX_PROMPT_CHARS_CEILING);
    // The worst moment: all but the end of the line is waiting when a full 64 KiB read arrives with the start of the next message.
    const read = 64 * 1024;
    const tail = 10;
    const reader = new ReadBuffer();
    expect(STDIO_DEFAULT_MAX_BUFFER_SIZE).toBe(10 * 1024 * 1024);
    reader.append(line.subarray(0, line.length - tail));
    reader.append(Buffer.concat([line.subarray(line.length - tail), Buffer.alloc(read - tail, 'x')]));
    const parsed = reader.readMessage() as unknown as { params: { arguments: { prompt: string } } };
    expect(parsed.params.arguments.prompt.length).toBe(MAX_PROMPT_CHARS_CEILING);
  });
});

describe('the answer cap', () => {
  it('carries 100000 characters of answers in a result by default, and at most 750000, so a result carrying them twice fits a 10 MiB line', () => {
    expect(loadConfig(withKey()).maxAnswerChars).toBe(100_000);
    expect(loadConfig(withKey({ PARALLEL_LLM_MAX_ANSWER_CHARS: '750000' })).maxAnswerChars).toBe(750_000);
    expect(configError(withKey({ PARALLEL_LLM_MAX_ANSWER_CHARS: '750001' })).message).toBe(
      'PARALLEL_LLM_MAX_ANSWER_CHARS must be at most 750000 (got "750001")',
    );
  });
});
