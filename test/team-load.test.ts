import { describe, expect, it } from 'vitest';
import { loadTeam, TeamNotInstalled } from '../src/team/load.js';

describe('loading team mode', () => {
  it('says how to install the team package when it is missing, rather than a module error', async () => {
    const missing = loadTeam('parallel-llm-mcp-team-not-installed');
    await expect(missing).rejects.toBeInstanceOf(TeamNotInstalled);
    await expect(missing).rejects.toThrow(/npm install -g parallel-llm-mcp-team/);
  });
});
