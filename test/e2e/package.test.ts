import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { HOMEPAGE } from '../../src/cli/help.js';
import { projectRoot } from '../support/install.js';

const packageJson = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as Record<string, unknown>;

describe('the published package', () => {
  it('holds only what a user needs: the built JavaScript, the docs, the config examples, the license', () => {
    const files = inject('packedFiles');
    const docs = ['.env.example', 'IMPROVEMENTS.md', 'LICENSE', 'README.md', 'mcp_config.json', 'package.json'];
    expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(docs);
    // Source maps point at src/, which is not shipped.
    expect(files.filter((file) => file.startsWith('dist/') && !file.endsWith('.js'))).toEqual([]);
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
});
