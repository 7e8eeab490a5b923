import path from 'node:path';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_APP_URI, RUN_PAGE_TOOL } from '../../src/mcp/app.js';
import type { RunPage } from '../../src/view/page-types.js';
import { agreeingSynthesizer } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { callTool, harnessesClosedAfterEach, type Harness } from '../support/harness.js';
import { launchBrowser, screenshot } from './browser.js';

/**
 * The MCP App (SPEC §12): declared only to clients that render MCP Apps, and shown by a test
 * host built on the extension's AppBridge, in chromium, against the real server and a fake OpenRouter.
 */
const APPS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

let fake: FakeOpenRouter;
let browser: Browser;
let hostScript: string;
/** One page for the file, its host's tool calls relayed to the harness of the test at hand. */
let page: Page;
let shownFor: Harness | undefined;
const start = harnessesClosedAfterEach();

beforeAll(async () => {
  fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
  for (const name of ['one', 'two', 'three']) fake.on(`app/${name}`, { answer: `The answer of **${name}**.` });
  fake.on('app/slow', { answer: 'Late, but here.', delayMs: 5000 });
  fake.on('app/synth', agreeingSynthesizer('The merged answer.'));
  fake.on('app/judge', { answer: 'CHOICE: B\nREASON: It shows its work.\nANSWER:\nThe chosen answer, fixed.' });
  for (const name of ['one', 'two', 'three'])
    fake.on(
      `council/${name}`,
      { answer: `Answer ${name}.` },
      { fromRequest: (request) => ({ answer: `Fine.\nRANKING: ${lettersShown(request.body)}` }) },
    );
  const bundled = await build({
    entryPoints: [path.join(import.meta.dirname, 'host', 'test-host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    logLevel: 'warning',
  });
  hostScript = bundled.outputFiles[0]!.text;
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) =>
    shownFor!.client.callTool(params),
  );
});
afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

const env = { PARALLEL_LLM_MODELS: 'app/one,app/two,app/three', PARALLEL_LLM_SYNTHESIZER_MODEL: 'app/synth' };

/** The page as a host shows it after a call: the resource read through MCP, the call's input and result handed over. */
async function showInHost(
  harness: Harness,
  input: Record<string, unknown>,
  result: CallToolResult,
  options: { width?: number; theme?: 'light' | 'dark' } = {},
) {
  const { contents } = await harness.client.readResource({ uri: RUN_APP_URI });
  shownFor = harness;
  await page.setViewportSize({ width: options.width ?? 1100, height: 800 });
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ content: hostScript });
  await page.evaluate(
    ([html, theme, args, toolResult]) =>
      (globalThis as unknown as { showApp: (...args: unknown[]) => unknown }).showApp(html, theme, args, toolResult),
    [(contents[0] as { text: string }).text, options.theme ?? 'light', input, result] as const,
  );
  return { page, app: page.frameLocator('iframe') };
}

/** A council member's ranking: the others' letters in the order its prompt shows them. */
function lettersShown(body: Record<string, unknown>): string {
  const prompt = (body.messages as Array<{ content: string }>).map((message) => message.content).join('\n');
  return [...prompt.matchAll(/### Candidate ([A-Z]+)/g)].map((match) => match[1]).join(' > ');
}

const status = (app: FrameLocator) => app.locator('main').getAttribute('data-status');

describe('the MCP App', () => {
  it('is not declared to a client that does not render MCP Apps: its tools, resources and results are as before', async () => {
    const harness = await start(fake, env);
    const { tools } = await harness.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_run', 'process_prompt']);
    for (const tool of tools) expect(tool._meta?.ui).toBeUndefined();
    const { resources } = await harness.client.listResources();
    expect(resources.map((resource) => resource.uri)).not.toContain(RUN_APP_URI);
    await expect(harness.client.readResource({ uri: RUN_APP_URI })).rejects.toThrow();
  });

  it('is declared to a client that renders MCP Apps: the tools name a self-contained page that declares no outside domain', async () => {
    const harness = await start(fake, env, { capabilities: { capabilities: APPS } });
    const { tools } = await harness.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.process_prompt!._meta).toMatchObject({ ui: { resourceUri: RUN_APP_URI }, [RESOURCE_URI_META_KEY]: RUN_APP_URI });
    expect(byName.get_run!._meta).toMatchObject({ ui: { resourceUri: RUN_APP_URI } });
    expect(byName[RUN_PAGE_TOOL]!._meta).toMatchObject({ ui: { visibility: ['app'] } });
    const { contents } = await harness.client.readResource({ uri: RUN_APP_URI });
    const page = contents[0] as unknown as { mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]> } } };
    expect(page.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(Object.values(page._meta.ui.csp).flat()).toEqual([]);
    expect(Buffer.byteLength(page.text)).toBeLessThan(300 * 1024);
    expect(page.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  });

  it('shows a finished run: the first line, every model’s answer side by side with its facts, and the synthesis', async () => {
    const harness = await start(fake, env, { capabilities: { capabilities: APPS } });
    const input = { prompt: 'What is best?' };
    const { result } = await callTool(harness, 'process_prompt', input);
    const { page, app } = await showInHost(harness, input, result);
    await expect.poll(() => app.locator('h1').textContent()).toBe('What is best?');
    expect(await app.locator('.summary').textContent()).toMatch(/^All 3 models answered/);
    expect(await app.locator('.column h2').allTextContents()).toEqual(['app/one', 'app/two', 'app/three']);
    expect(await app.locator('.column').nth(1).locator('.body strong').textContent()).toBe('two');
    expect(await app.locator('.column').nth(0).locator('.facts').textContent()).toMatch(/answered.*tokens.*\$/);
    expect(await app.locator('.final .body').textContent()).toBe('The merged answer.');
    const agreement = app.locator('.agreement');
    expect(await agreement.locator('.agreed li').allTextContents()).toEqual(['the problem is real']);
    expect(await agreement.locator('.positions .model').allTextContents()).toEqual(['app/one', 'app/two, app/three']);
    expect(await agreement.locator('.resolution .prose').textContent()).toBe('patch it now, rewrite later');
    expect(await agreement.locator('.unique .model').allTextContents()).toEqual(['app/three']);
    const data = await harness.client.callTool({ name: RUN_PAGE_TOOL, arguments: { run_id: result.structuredContent!.run_id } });
    expect((data.structuredContent as unknown as RunPage).result.agreement?.unique).toEqual([
      { model: 'app/three', point: 'an edge case', kept: true },
    ]);
    expect(await page.evaluate('window.toolCalls')).toEqual([RUN_PAGE_TOOL]);
    await screenshot(page, 'app-finished-light');
  });

  it('follows a running run through get_run until it completes', async () => {
    const harness = await start(
      fake,
      { ...env, PARALLEL_LLM_MODELS: 'app/one,app/slow', PARALLEL_LLM_BUDGET_MS: '600', PARALLEL_LLM_TIMEOUT_MS: '30000' },
      { capabilities: { capabilities: APPS } },
    );
    const input = { prompt: 'Take your time' };
    const { result, data } = await callTool(harness, 'process_prompt', input);
    expect(data!.status).toBe('running');
    const { page, app } = await showInHost(harness, input, result, { width: 420 });
    await expect.poll(() => status(app)).toBe('running');
    await screenshot(page, 'app-running-narrow');
    await expect.poll(() => status(app), { timeout: 15_000 }).toBe('complete');
    expect(await page.evaluate('window.toolCalls')).toContain('get_run');
    await app.locator('#tab-1').click();
    expect(await app.locator('.column:visible .body').textContent()).toBe('Late, but here.');
  });

  it('shows a judge run: the chosen model’s real id and the reason', async () => {
    const harness = await start(fake, { ...env, PARALLEL_LLM_SYNTHESIZER_MODEL: 'app/judge' }, { capabilities: { capabilities: APPS } });
    const input = { prompt: 'Pick one', strategy: 'judge' };
    const { result, data } = await callTool(harness, 'process_prompt', input);
    const { page, app } = await showInHost(harness, input, result, { theme: 'dark' });
    await expect
      .poll(() => app.locator('.chosen').textContent())
      .toBe(`Chose answer ${data!.judge!.chosen_index}: ${data!.judge!.chosen_model}`);
    expect(data!.judge!.chosen_model).toMatch(/^app\/(one|two|three)$/);
    expect(await app.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await app.locator('.reason').textContent()).toBe('Why: It shows its work.');
    expect(await app.locator('.final .body').textContent()).toBe('The chosen answer, fixed.');
    expect(await app.locator('.agreement').count()).toBe(0);
    await screenshot(page, 'app-judge-dark');
  });

  it('shows a council run: each member’s ranking of the others as a table, by real model ids', async () => {
    const models = ['council/one', 'council/two', 'council/three'];
    const harness = await start(fake, { ...env, PARALLEL_LLM_MODELS: models.join(',') }, { capabilities: { capabilities: APPS } });
    const input = { prompt: 'Rank them', strategy: 'council' };
    const { result } = await callTool(harness, 'process_prompt', input);
    const { page, app } = await showInHost(harness, input, result);
    const rows = app.locator('.rankings tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    for (const [i, model] of models.entries()) {
      expect(await rows.nth(i).locator('th').textContent()).toBe(`${i + 1}. ${model}`);
      const ranked = await rows.nth(i).locator('li').allTextContents();
      expect([...ranked].sort()).toEqual(models.filter((other) => other !== model).sort());
    }
    expect(await app.locator('.combined tbody tr').count()).toBe(3);
    await screenshot(page, 'app-council');
  });
});
