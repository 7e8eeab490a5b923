import { copyFileSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FakeOpenRouter } from '../support/fake-openrouter.js';
import { VALID_KEY } from '../support/fake-openrouter.js';
import { tempDir } from '../support/harness.js';
import { projectRoot } from '../support/install.js';
import { binPath, connect, startE2eFake, userEnv } from './support.js';

/** One way of starting the server, as a config in the README, the docs or mcp_config.json gives it. */
interface Launch {
  where: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The one placeholder a user replaces in every config: the folder that holds the tarball or the clone. */
const PLACEHOLDER = '/abs/path/to/';

/** The pages a user reads configs in: the README and every page of docs/. */
const pages = ['README.md', ...readdirSync(path.join(projectRoot, 'docs')).map((file) => `docs/${file}`)].map((page) => ({
  page,
  text: readFileSync(path.join(projectRoot, page), 'utf8'),
}));
const readme = pages[0]!.text;
const mcpConfig = readFileSync(path.join(projectRoot, 'mcp_config.json'), 'utf8');
const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
const tarballName = `parallel-llm-mcp-${version}.tgz`;

/** Every code block in `language`, with the page it is on; a block may be indented in a list. */
const codeBlocks = (language: string) =>
  pages.flatMap(({ page, text }) =>
    [...text.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\\s*\`\`\``, 'g'))].map((match) => ({ page, block: match[1]! })),
  );

/** The servers a Claude Desktop / Cursor (`mcpServers`) or VS Code (`servers`) config starts; a team server's (a URL) is test/team's. */
function launchesInJson(text: string, where: string): Launch[] {
  const config = JSON.parse(text) as Record<string, Record<string, { command?: string; args?: string[]; env?: Record<string, string> }>>;
  const started = Object.values(config.mcpServers ?? config.servers ?? {}).filter((server) => server.command !== undefined);
  return started.map((server) => ({
    where,
    command: server.command!,
    args: server.args ?? [],
    env: server.env ?? {},
  }));
}

/** `claude mcp add NAME --env K=V -- COMMAND ARGS...`, as the docs write it (no quoting). */
function launchOfClaudeCommand(line: string, where: string): Launch {
  const [options, commandLine] = line.split(' -- ');
  const env = Object.fromEntries([...options!.matchAll(/--env (\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
  const [command, ...args] = commandLine!.trim().split(/\s+/);
  return { where, command: command!, args, env };
}

/** The servers of a Codex config.toml: `[mcp_servers.NAME]` with `command`, `args` and an inline `env` table. */
function launchesInToml(text: string, where: string): Launch[] {
  return text
    .split(/^\s*\[mcp_servers\.[\w-]+\]\s*$/m)
    .slice(1)
    .filter((section) => /^\s*command\s*=/m.test(section))
    .map((section) => {
      const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(.+)$`, 'm').exec(section)?.[1];
      const env = Object.fromEntries(
        [...(value('env') ?? '').matchAll(/(\w+)\s*=\s*("[^"]*")/g)].map((match) => [match[1]!, JSON.parse(match[2]!) as string]),
      );
      return { where, command: JSON.parse(value('command')!) as string, args: JSON.parse(value('args') ?? '[]') as string[], env };
    });
}

const launches: Launch[] = [
  ...codeBlocks('json').flatMap(({ page, block }) => launchesInJson(block, `${page} json block`)),
  ...codeBlocks('toml').flatMap(({ page, block }) => launchesInToml(block, `${page} Codex block`)),
  ...codeBlocks('sh').flatMap(({ page, block }) =>
    block
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('claude mcp add ') && !line.includes('--transport http'))
      .map((line) => launchOfClaudeCommand(line, `${page} claude mcp add`)),
  ),
  ...launchesInJson(mcpConfig, 'mcp_config.json'),
];

/**
 * A folder laid out as the configs assume: the packed tarball, and the built clone (this
 * checkout) as `parallel-llm-mcp/`. It stands in for the user's /abs/path/to/.
 */
let userFolder: string;

/**
 * The launch with the user's folder in place of the placeholder, and nothing else changed.
 * `cmd /c` (Windows) runs what follows it, its `C:\path\to\` standing for the same folder.
 * `npx -y parallel-llm-mcp` (the registry, once published) gets the same package from the tarball,
 * and the bare command (a global install) is the installed bin.
 */
function onThisMachine(launch: Launch): { command: string; args: string[] } {
  const [command, ...args] = launch.command === 'cmd' ? launch.args.slice(1) : [launch.command, ...launch.args];
  const local = args.map((arg) => arg.replace(PLACEHOLDER, `${userFolder}/`).replace(/C:\\path\\to\\/, `${userFolder}/`));
  if (command === 'npx' && local.join(' ') === '-y parallel-llm-mcp')
    return { command, args: ['-y', `--package=${inject('tarball')}`, 'parallel-llm-mcp'] };
  // What `npm install -g` puts on the PATH: the installed bin.
  if (command === 'parallel-llm-mcp') return { command: binPath(), args: local };
  return { command: command!, args: local };
}

let fake: FakeOpenRouter;
beforeAll(async () => {
  fake = await startE2eFake();
  userFolder = await tempDir();
  copyFileSync(inject('tarball'), path.join(userFolder, tarballName));
  symlinkSync(projectRoot, path.join(userFolder, 'parallel-llm-mcp'));
});
afterAll(async () => {
  await fake.close();
});

describe('the client configs in README.md, docs/ and mcp_config.json', () => {
  it('cover every install path (the clone, the tarball, a global install, the registry) and every client the README names', () => {
    const forms = launches.map((launch) => `${launch.command} ${launch.args.join(' ')}`);
    expect(forms.filter((form) => form === 'node /abs/path/to/parallel-llm-mcp/dist/bin.js').length).toBeGreaterThanOrEqual(3);
    expect(forms.filter((form) => form.includes(`--package=/abs/path/to/${tarballName} parallel-llm-mcp`)).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(forms).toContain('npx -y parallel-llm-mcp');
    expect(forms).toContain('parallel-llm-mcp ');
    // The README itself: Claude Code's command, the JSON of Claude Desktop, Cursor and Gemini CLI, VS Code's, Codex's TOML, and the registry form.
    const inReadme = (kind: string) => launches.filter((launch) => launch.where === `README.md ${kind}`).length;
    expect(inReadme('claude mcp add')).toBeGreaterThanOrEqual(1);
    expect(inReadme('json block')).toBeGreaterThanOrEqual(2);
    expect(inReadme('Codex block')).toBe(1);
    expect(readme).toContain('npx -y parallel-llm-mcp');
    // The tarball named anywhere is the one `npm pack` writes for this version.
    const named = pages.flatMap(({ text }) => [...text.matchAll(/parallel-llm-mcp-[\w.-]+\.tgz/g)].map((match) => match[0]));
    expect(named.every((name) => name === tarballName)).toBe(true);
    for (const launch of launches) expect(Object.keys(launch.env)).toEqual(['OPENROUTER_API_KEY']);
  });

  it('mcp_config.json ships one entry from the tarball and one from a clone, whose only placeholders are /abs/path/to/ and the key', () => {
    const servers = launchesInJson(mcpConfig, 'mcp_config.json').map((launch) => `${launch.command} ${launch.args.join(' ')}`);
    expect(servers).toEqual([
      `npx -y --package=${PLACEHOLDER}${tarballName} parallel-llm-mcp`,
      `node ${PLACEHOLDER}parallel-llm-mcp/dist/bin.js`,
    ]);
    // Nothing else in it looks like a path to fill in.
    expect(mcpConfig.replaceAll(PLACEHOLDER, '').match(/\/(abs|path)\b|<|\.\.\./g)).toBeNull();
  });

  it.each(launches.map((launch) => [`${launch.where}: ${launch.command} ${launch.args.join(' ')}`, launch] as const))(
    'starts the server and lists its tools: %s',
    async (_name, launch) => {
      const { command, args } = onThisMachine(launch);
      // The config's key is a placeholder; the rest of the environment points the server at the fake.
      const session = await connect(userEnv(fake, await tempDir(), { ...launch.env, OPENROUTER_API_KEY: VALID_KEY }), command, args);
      try {
        const { tools } = await session.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['process_prompt', 'get_run']);
        expect(session.client.getServerVersion()?.name).toBe('parallel-llm-server');
      } finally {
        await session.close();
      }
    },
    120_000,
  );
});
