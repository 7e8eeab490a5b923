import { execFile } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { tempDir } from '../support/harness.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `parallel-llm-mcp ARGS` in a process of its own (the bin global-setup.ts built from the
 * sources), in an empty working folder (no .env) with only the environment given.
 */
export async function cli(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const cwd = await tempDir('plm-team-cli-');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(inject('cliDir'), 'dist', 'bin.js'), ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: unknown }).code as number | null) : 0, stdout, stderr }),
    );
  });
}
