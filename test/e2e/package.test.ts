import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { HOMEPAGE } from '../../src/cli/help.js';
import { tempDir } from '../support/harness.js';
import { projectRoot } from '../support/install.js';
import { binPath, connect, processPrompt, startE2eFake, userEnv } from './support.js';

const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

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

describe('the published package', () => {
  it('holds only what a user needs: the built JavaScript, the docs, the config examples, the license', () => {
    const files = inject('packedFiles');
    const docs = ['.env.example', 'IMPROVEMENTS.md', 'LICENSE', 'README.md', 'mcp_config.json', 'package.json'];
    expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(docs);
    // Source maps point at src/, which is not shipped; the bundle carries its packages' licences.
    expect(files.filter((file) => file.startsWith('dist/') && !file.endsWith('.js'))).toEqual(['dist/THIRD-PARTY-LICENSES.md']);
    expect(files).toContain('dist/bin.js');
  });

  it('says where it comes from, where to report bugs, and under which license', () => {
    expect(packageJson).toMatchObject({
      license: 'MIT',
      homepage: HOMEPAGE,
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/) },
      bugs: { url: expect.stringMatching(/^https:\/\/.+\/issues$/) },
    });
    expect(readFileSync(path.join(projectRoot, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('starts and answers without loading any other package: the upstream client lives in the run host', async () => {
    const fake = await startE2eFake();
    const session = await connect(userEnv(fake, await tempDir()), process.execPath, ['--import', REPORT_PACKAGES, binPath()]);
    const { data } = await processPrompt(session, { prompt: 'What is 2+2?' });
    expect(data!.status).toBe('complete');
    await session.close();
    expect(resolvedPackages(session.stderr())).toEqual([]);
    await fake.close();
  });
});
