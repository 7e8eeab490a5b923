import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { binPath, connect, processPrompt, startE2eFake, userEnv } from './support.js';

/**
 * Node 20 is past its end of life and users run 22 and 24: the installed bin runs under each,
 * through a real MCP handshake and a tool call. The registry's `node` package brings each
 * version into the suite's temporary npm cache, where it stays for the rest of the run.
 */
const MAJORS = ['22', '24'];

/** The path of a Node binary of this major version, installed by npx into the suite's npm cache. */
async function nodeOf(major: string): Promise<string> {
  const { stdout } = await promisify(execFile)('npx', ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      npm_config_cache: inject('npmCache'),
      npm_config_update_notifier: 'false',
    },
    cwd: await tempDir(),
  });
  return stdout.trim();
}

let fake: FakeOpenRouter;
const nodes = new Map<string, string>();
beforeAll(async () => {
  fake = await startE2eFake();
  for (const major of MAJORS) nodes.set(major, await nodeOf(major));
});
afterAll(async () => {
  await fake.close();
});

describe.each(MAJORS)('on Node %s', (major) => {
  it('the installed bin answers the MCP handshake, lists its tools and answers a prompt', async () => {
    const node = nodes.get(major)!;
    const { stdout: version } = await promisify(execFile)(node, ['--version']);
    expect(version).toMatch(new RegExp(`^v${major}\\.`));
    // Node 22+ keeps its compile cache under TMPDIR: a temporary folder of the test's own.
    const session = await connect(userEnv(fake, await tempDir(), { TMPDIR: await tempDir() }), node, [binPath()]);
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
      const { result, data } = await processPrompt(session, { prompt: `Which Node? ${major}` });
      expect(result.isError).toBeFalsy();
      expect(data!.status).toBe('complete');
      expect(data!.answer).toBe('The answer is 4.');
    } finally {
      await session.close();
    }
  });
});
