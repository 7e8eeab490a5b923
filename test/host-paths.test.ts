import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { hostPaths, socketProblem } from '../src/host/paths.js';

const config = (env: Record<string, string> = {}) =>
  loadConfig({ OPENROUTER_API_KEY: 'sk-or-v1-test-key-0123456789', PARALLEL_LLM_OUTPUT_DIR: '/tmp/runs', ...env });

describe('the run host’s identity', () => {
  it('is shared by clients of the same version and settings, whatever their per-call defaults', () => {
    const a = hostPaths(config({ PARALLEL_LLM_MODELS: 'a/one' }), '1.0.0', { XDG_RUNTIME_DIR: '/run/user/1000' }, 'linux');
    const b = hostPaths(
      config({ PARALLEL_LLM_MODELS: 'b/two', PARALLEL_LLM_BUDGET_MS: '9000' }),
      '1.0.0',
      { XDG_RUNTIME_DIR: '/run/user/1000' },
      'linux',
    );
    expect(a).toEqual(b);
    expect(a.dir).toBe('/run/user/1000/parallel-llm-mcp');
    expect(a.socket).toBe(`/run/user/1000/parallel-llm-mcp/${a.id}.sock`);
  });

  it.each([
    ['another version', config(), '1.0.1'],
    ['another key', config({ OPENROUTER_API_KEY: 'sk-or-v1-another-key-987654' }), '1.0.0'],
    ['another output folder', config({ PARALLEL_LLM_OUTPUT_DIR: '/tmp/elsewhere' }), '1.0.0'],
    ['another concurrency limit', config({ PARALLEL_LLM_MAX_CONCURRENCY: '9' }), '1.0.0'],
    ['another prompt limit, which shortens follow-ups', config({ PARALLEL_LLM_MAX_PROMPT_CHARS: '5000' }), '1.0.0'],
  ])('is another for %s: two versions, or two sets of settings, never share a host', (_name, other, version) => {
    expect(hostPaths(other, version, {}, 'linux').id).not.toBe(hostPaths(config(), '1.0.0', {}, 'linux').id);
  });

  it('lives in a folder of the user’s own in the temporary folder without XDG_RUNTIME_DIR, or where PARALLEL_LLM_HOST_DIR says', () => {
    expect(hostPaths(config(), '1.0.0', {}, 'linux').dir).toMatch(/parallel-llm-mcp-\d+$/);
    expect(hostPaths(config({ PARALLEL_LLM_HOST_DIR: '/srv/host' }), '1.0.0', {}, 'linux').dir).toBe('/srv/host');
  });

  it('uses a named pipe on Windows, and refuses a socket path too long for a Unix socket', () => {
    expect(hostPaths(config(), '1.0.0', { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, 'win32').socket).toMatch(
      /^\\\\\.\\pipe\\parallel-llm-mcp-.+-[0-9a-f]{16}$/,
    );
    const deep = hostPaths(config({ PARALLEL_LLM_HOST_DIR: `/tmp/${'x'.repeat(120)}` }), '1.0.0', {}, 'linux');
    expect(socketProblem(deep, 'linux')).toMatch(/longer than a Unix socket allows; set PARALLEL_LLM_HOST_DIR/);
    expect(socketProblem(hostPaths(config(), '1.0.0', {}, 'linux'), 'linux')).toBeUndefined();
  });
});
