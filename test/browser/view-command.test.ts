import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VALID_KEY } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';

/** `parallel-llm-mcp view` as a user runs it: from the sources, in its own process, stopped with Ctrl-C (SIGINT). */
const root = path.resolve(import.meta.dirname, '..', '..');

function view(args: string[], outputDir: string, tmp: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'index.ts'), 'view', ...args], {
    // The project's folder, for tsx; it has no .env.
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: tmp,
      TMPDIR: tmp,
      TSX_DISABLE_CACHE: '1',
      OPENROUTER_API_KEY: VALID_KEY,
      PARALLEL_LLM_OUTPUT_DIR: outputDir,
      PARALLEL_LLM_HOST_DIR: path.join(tmp, '.host'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const found = /http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/\S*/.exec(stdout);
      if (found) resolve(found[0]);
    });
    void exited.then(() => reject(new Error(`view exited before printing a URL: ${stderr}`)));
  });
  url.catch(() => undefined);
  return { child, exited, url, output: () => ({ stdout, stderr }) };
}

describe('parallel-llm-mcp view', () => {
  it('says what it does with --help', async () => {
    const tmp = await tempDir();
    const run = view(['--help'], tmp, tmp);
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toMatch(/Usage: parallel-llm-mcp view[\s\S]*127\.0\.0\.1[\s\S]*Read-only[\s\S]*--no-open/);
  });

  it('answers an unknown run id with a clear error and exit code 1', async () => {
    const tmp = await tempDir();
    const run = view(['2020-01-01T00-00-00.000Z_00000000', '--no-open'], path.join(tmp, 'runs'), tmp);
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toContain(`parallel-llm-mcp view: no run 2020-01-01T00-00-00.000Z_00000000 in ${path.join(tmp, 'runs')}`);
  });

  it('prints its URL, serves an empty list for an empty folder, and stops on Ctrl-C', async () => {
    const tmp = await tempDir();
    const run = view(['--no-open'], path.join(tmp, 'runs'), tmp);
    const url = await run.url;
    expect(run.output().stdout).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/\n/);
    expect(await (await fetch(`${url}api/runs`)).json()).toEqual([]);
    expect((await fetch(new URL('/api/runs', url))).status).toBe(404);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });
});
