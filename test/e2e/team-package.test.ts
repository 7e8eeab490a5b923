import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { packagesNpxInstalled, projectRoot } from '../support/install.js';
import { runBin } from './support.js';

const run = promisify(execFile);

describe('team mode lives in a package of its own', () => {
  it('a local install alone says how to add the team package, instead of failing to load it', async () => {
    const ran = await runBin(['users', 'list'], { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('team mode needs the parallel-llm-mcp-team package beside this one: npm install -g parallel-llm-mcp-team');
  });

  it('installed beside it (npx -p both), the team commands load it and its pg, and ask for the database', async () => {
    const dir = await tempDir();
    const npmCache = path.join(dir, 'npm-cache');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      npm_config_cache: npmCache,
      npm_config_update_notifier: 'false',
    };
    // The team package as published: its dist/ was built by the pack of the main package (global-setup.ts).
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--silent', '--workspace', 'packages/team', '--pack-destination', dir], {
        cwd: projectRoot,
        env,
        encoding: 'utf8',
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed!.files.map((file) => file.path).sort()).toEqual(['dist/index.js', 'package.json']);
    const npx = [
      '-y',
      `--package=${inject('tarball')}`,
      `--package=${path.join(dir, packed!.filename)}`,
      'parallel-llm-mcp',
      'users',
      'list',
    ];
    const ran = await run('npx', npx, { cwd: dir, env, encoding: 'utf8' }).catch((error: { code: number; stderr: string }) => error);
    expect(ran).toMatchObject({ code: 1 });
    expect((ran as { stderr: string }).stderr).toContain('parallel-llm-mcp users: PARALLEL_LLM_DATABASE_URL is not set');
    expect(packagesNpxInstalled(npmCache)).toEqual(expect.arrayContaining(['parallel-llm-mcp', 'parallel-llm-mcp-team', 'pg']));
  }, 120_000);
});
