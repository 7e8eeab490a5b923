import { execFileSync } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { binPath, connect, processPrompt, startE2eFake, userEnv, waitFor } from './support.js';

/**
 * Module hooks that print `RESOLVED <package>` on stderr for every module resolved from
 * another package's folder: the bundle must hold everything the server needs to start.
 */
const REPORT_PACKAGES_HOOKS = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url)?.[1];
  if (name && name !== 'parallel-llm-mcp') writeSync(2, 'RESOLVED ' + name + '\\n');
  return resolved;
}`;
const REPORT_PACKAGES = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(REPORT_PACKAGES_HOOKS)}`)});`,
)}`;

const resolvedPackages = (stderr: string) => [...new Set([...stderr.matchAll(/^RESOLVED (\S+)$/gm)].map((match) => match[1]))];

describe('the packed package', () => {
  it("ships the bundle with the bundled packages' licences and no source maps", () => {
    const files = execFileSync('tar', ['-tzf', inject('tarball')], { encoding: 'utf8' }).split('\n');
    expect(files).toContain('package/dist/bin.js');
    expect(files).toContain('package/dist/THIRD-PARTY-LICENSES.md');
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
  });

  it('starts without loading any other package, and loads undici only for the first request', async () => {
    const fake = await startE2eFake();
    const session = await connect(userEnv(fake, await tempDir()), process.execPath, ['--import', REPORT_PACKAGES, binPath()]);
    await processPrompt(session, { prompt: 'What is 2+2?' });
    // stderr is one pipe written in order: once undici's line is in, every line from the start is too.
    await waitFor(() => resolvedPackages(session.stderr()).includes('undici'));
    expect(resolvedPackages(session.stderr())).toEqual(['undici']);
    await session.close();
    await fake.close();
  });
});
