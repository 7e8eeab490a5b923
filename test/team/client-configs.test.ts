import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, migrate, openPool } from '../../packages/team/src/index.js';
import { VALID_KEY } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { testDatabase } from './database.js';
import { startServe, stopAllServes, type ServeProcess } from './serve-process.js';

/** The placeholders a member replaces: the server's URL and their token (as itself, or through an environment variable or an input). */
const URL_PLACEHOLDER = 'https://plm.example.com/mcp';
// biome-ignore lint/suspicious/noTemplateCurlyInString: Cursor's and VS Code's own placeholders, written as the configs write them.
const TOKEN_PLACEHOLDERS = ['plm_...', '${env:PLM_TOKEN}', '${input:plm-token}'];

/** A member's client as a config gives it: where it connects and the headers it sends. */
interface Remote {
  where: string;
  url: string;
  headers: Record<string, string>;
}

const root = path.resolve(import.meta.dirname, '..', '..');
const pages = ['README.md', 'docs/team.md'].map((page) => ({ page, text: readFileSync(path.join(root, page), 'utf8') }));

const blocks = (language: string) =>
  pages.flatMap(({ page, text }) =>
    [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\\s*\`\`\``, 'g'))].map((match) => ({ page, block: match[1]! })),
  );

/** `claude mcp add --transport http NAME URL --header "K: V"`. */
const claudeRemotes = blocks('sh').flatMap(({ page, block }) =>
  [...block.matchAll(/claude mcp add --transport http \S+ (\S+) --header "([^:]+): ([^"]+)"/g)].map((match) => ({
    where: `${page} claude mcp add`,
    url: match[1]!,
    headers: { [match[2]!]: match[3]! },
  })),
);

/** Cursor's and Gemini CLI's `mcpServers`, VS Code's `servers`: the servers with a URL. */
const jsonRemotes = blocks('json').flatMap(({ page, block }) => {
  const config = JSON.parse(block) as Record<string, Record<string, { url?: string; httpUrl?: string; headers?: Record<string, string> }>>;
  return Object.values(config.mcpServers ?? config.servers ?? {})
    .filter((server) => server.url ?? server.httpUrl)
    .map((server) => ({ where: `${page} json`, url: (server.httpUrl ?? server.url)!, headers: server.headers ?? {} }));
});

/** Codex's `[mcp_servers.NAME]` with `url` and `bearer_token_env_var`. */
const tomlRemotes = blocks('toml').flatMap(({ page, block }) => {
  const url = /^\s*url = "([^"]+)"$/m.exec(block)?.[1];
  const variable = /^\s*bearer_token_env_var = "([^"]+)"$/m.exec(block)?.[1];
  return url ? [{ where: `${page} toml`, url, headers: { Authorization: `Bearer \${env:${variable}}` } }] : [];
});

const remotes: Remote[] = [...claudeRemotes, ...jsonRemotes, ...tomlRemotes];

let pool: pg.Pool;
let serve: ServeProcess;
let token: string;

beforeAll(async () => {
  const url = await testDatabase();
  pool = openPool(url);
  await migrate(pool);
  token = (await addMember(pool, { name: 'reader' })).token;
  serve = await startServe({
    PARALLEL_LLM_DATABASE_URL: url,
    OPENROUTER_API_KEY: VALID_KEY,
    PARALLEL_LLM_OUTPUT_DIR: await tempDir('plm-team-runs-'),
  });
}, 60_000);

afterAll(async () => {
  await stopAllServes();
  await pool?.end();
});

describe('the member client configs in README.md and docs/team.md', () => {
  it('give Claude Code, Cursor, VS Code, Codex and Gemini CLI a URL ending /mcp and a bearer token', () => {
    expect(remotes.map((remote) => remote.where)).toEqual([
      'README.md claude mcp add',
      'docs/team.md claude mcp add',
      'docs/team.md json',
      'docs/team.md json',
      'docs/team.md json',
      'docs/team.md toml',
    ]);
    for (const remote of remotes) {
      expect(remote.url).toBe(URL_PLACEHOLDER);
      expect(Object.keys(remote.headers)).toEqual(['Authorization']);
      expect(TOKEN_PLACEHOLDERS.map((placeholder) => `Bearer ${placeholder}`)).toContain(remote.headers.Authorization);
    }
    // VS Code's input is asked for once, as a password.
    expect(pages[1]!.text).toContain('"inputs": [{ "type": "promptString", "id": "plm-token"');
  });

  it.each(remotes.map((remote, index) => [`${index}: ${remote.where}`, remote] as const))(
    'connect as written, with the server and the token filled in, and list the tools: %s',
    async (_name, remote) => {
      const headers = Object.fromEntries(
        Object.entries(remote.headers).map(([name, value]) => [
          name,
          TOKEN_PLACEHOLDERS.reduce((text, placeholder) => text.replace(placeholder, token), value),
        ]),
      );
      const transport = new StreamableHTTPClientTransport(new URL(remote.url.replace('https://plm.example.com', serve.base)), {
        requestInit: { headers },
      });
      const client = new Client({ name: 'config-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
      } finally {
        await client.close();
      }
    },
  );
});
