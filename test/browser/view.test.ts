import { runStorage } from '../../src/store/run-store.js';
import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRequest } from '../../src/mcp/run-request.js';
import { startViewServer, type ViewServer } from '../../src/view/server.js';
import { agreeingSynthesizer } from '../support/agreeing-synthesizer.js';
import { startFakeOpenRouter, type FakeOpenRouter } from '../support/fake-openrouter.js';
import { callTool, mustStart, startHarness, type Harness } from '../support/harness.js';
import { launchBrowser, screenshot } from './browser.js';

/** `parallel-llm-mcp view`'s pages in a real browser, over runs made by the real server against a fake OpenRouter. */
const HOSTILE = [
  'Here is **bold** and `code`.',
  '<script>window.pwned = 1</script>',
  '<img src="http://198.51.100.7/x.png" onerror="window.pwned = 2">',
  '![remote](http://198.51.100.7/y.png)',
  '[a link](javascript:window.pwned=3)',
].join('\n\n');

/** The synthesizer's account of the two answers (labels L1, L2), with untrusted text in each part. */
const account = ([first, second]: string[]) => ({
  consensus: ['the problem is **real**', '<script>window.pwned = 4</script>'],
  disagreements: [
    {
      point: 'the fix',
      positions: [
        { candidates: [first], view: 'patch it' },
        { candidates: [second], view: '<img src=z.png onerror="window.pwned = 5">' },
      ],
      resolution: 'patch it now, rewrite `later`',
    },
  ],
  unique: [
    { candidate: second, point: 'an edge case', kept: true },
    { candidate: first, point: '[a side note](javascript:window.pwned=6)', kept: false },
  ],
});

let fake: FakeOpenRouter;
let harness: Harness;
let server: ViewServer;
let browser: Browser;
let page: Page;
let finished: string;
let other: string;

beforeAll(async () => {
  fake = await startFakeOpenRouter({ keepAliveCommentMs: 50 });
  fake.on('v/alpha', { answer: '# Alpha\n\n- one\n- two\n\n```js\nconst x = 1;\n```' });
  fake.on('v/beta', { answer: HOSTILE });
  fake.on('v/slow', { answer: 'Slow but sure.', delayMs: 2500 });
  fake.on('v/synth', agreeingSynthesizer('The **merged** answer.', { account }));
  harness = await startHarness(fake, { PARALLEL_LLM_MODELS: 'v/alpha,v/beta', PARALLEL_LLM_SYNTHESIZER_MODEL: 'v/synth' });
  finished = (await callTool(harness, 'process_prompt', { prompt: 'Compare the two\nwith details' })).data!.run_id;
  other = (await callTool(harness, 'process_prompt', { prompt: 'Another question', models: ['v/alpha'], agreement: false })).data!.run_id;
  server = await startViewServer(harness.app.service, runStorage(harness.config), harness.config);
  browser = await launchBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await harness?.close();
  await fake?.close();
});

/** The file's one page, at this width, in the light scheme, showing this path under the token. */
async function open(path: string, width = 1280): Promise<Page> {
  await page.setViewportSize({ width, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(server.url + path);
  return page;
}

describe('parallel-llm-mcp view', () => {
  it('answers 404 to any path without the token, with a wrong token, or with a bad or unknown run id', async () => {
    const base = new URL(server.url);
    const status = async (path: string, init?: RequestInit) => (await fetch(new URL(path, base), init)).status;
    expect(await status(server.url)).toBe(200);
    expect(await status('/')).toBe(404);
    expect(await status('/api/runs')).toBe(404);
    expect(await status(`/${'x'.repeat(32)}/`)).toBe(404);
    expect(await status(`/runs/${finished}`)).toBe(404);
    expect(await status(`${server.url}runs/..%2F..%2Fetc%2Fpasswd`)).toBe(404);
    expect(await status(`${server.url}api/runs/..%2Frun.json`)).toBe(404);
    expect(await status(`${server.url}runs/2020-01-01T00-00-00.000Z_00000000`)).toBe(404);
    expect(await status(`${server.url}api/runs/2020-01-01T00-00-00.000Z_00000000`)).toBe(404);
    expect(await status(`${server.url}api/runs/${finished}`)).toBe(200);
    expect(await status(`${server.url}api/runs`, { method: 'POST' })).toBe(404);
    // A page elsewhere whose name was rebound to 127.0.0.1 sends its own name as the Host.
    const rebound = await new Promise<number | undefined>((resolve, reject) =>
      http.get(server.url, { headers: { host: 'attacker.example' } }, (res) => resolve(res.resume().statusCode)).on('error', reject),
    );
    expect(rebound).toBe(404);
  });

  it('lists the runs newest first, filtered by text and by status', async () => {
    await open('');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).getAttribute('data-run')).toBe(other);
    await expect.poll(() => rows.nth(1).textContent()).toMatch(/complete.*2\/2.*Compare the two/);
    await screenshot(page, 'view-list');
    await page.fill('#filter', 'compare');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.nth(0).getAttribute('data-run')).toBe(finished);
    await page.fill('#filter', '');
    await page.selectOption('#status', 'running');
    await expect.poll(() => page.locator('.count').textContent()).toBe('0 of 2 runs');
    await page.selectOption('#status', 'complete');
    await expect.poll(() => rows.count()).toBe(2);
    await rows.nth(1).locator('a').click();
    await page.waitForURL(`**/runs/${finished}`);
  });

  it('shows a run: each model side by side with its facts, the synthesis, and a hostile answer as text', async () => {
    await open(`runs/${finished}`);
    const columns = page.locator('.column');
    await expect.poll(() => columns.count()).toBe(2);
    expect(await columns.nth(0).locator('h2').textContent()).toBe('v/alpha');
    expect(await columns.nth(1).locator('h2').textContent()).toBe('v/beta');
    expect(await columns.nth(0).locator('.facts').textContent()).toMatch(/answered.*s.*tokens/);
    expect(await columns.nth(0).locator('.body h1').textContent()).toBe('Alpha');
    expect(await columns.nth(0).locator('.body pre code').textContent()).toBe('const x = 1;');
    expect(await page.locator('.summary').textContent()).toMatch(/^All 2 models answered/);
    expect(await page.locator('.final .body').textContent()).toBe('The merged answer.');
    const hostile = columns.nth(1).locator('.body');
    expect(await hostile.textContent()).toContain('<script>window.pwned = 1</script>');
    expect(await hostile.textContent()).toContain('onerror="window.pwned = 2"');
    expect(await hostile.textContent()).toContain('[image: remote (http://198.51.100.7/y.png)]');
    expect(await page.locator('#root :is(img, script, [onerror])').count()).toBe(0);
    expect(await hostile.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual([
      'http://198.51.100.7/x.png',
    ]);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await columns.nth(0).locator('.copy').count()).toBe(1);
    await screenshot(page, 'view-run-wide-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'view-run-wide-dark');
  });

  it('shows where the models agreed and differed, by real model id, with the account’s text as text', async () => {
    await open(`runs/${finished}`);
    const agreement = page.locator('.agreement');
    await expect.poll(() => agreement.locator('h3').allTextContents()).toEqual(['Agreed', 'Differed', 'Only one model']);
    expect(await agreement.locator('.agreed li').allTextContents()).toEqual(['the problem is real', '<script>window.pwned = 4</script>']);
    expect(await agreement.locator('.agreed strong').textContent()).toBe('real');
    const differed = agreement.locator('.differed > ul > li');
    expect(await differed.locator('.point').textContent()).toBe('the fix');
    expect(await differed.locator('.positions li .model').allTextContents()).toEqual(['v/alpha', 'v/beta']);
    expect(await differed.locator('.positions li').nth(1).textContent()).toContain('onerror="window.pwned = 5"');
    expect(await differed.locator('.resolution .prose').textContent()).toBe('patch it now, rewrite later');
    expect(await differed.locator('.resolution code').textContent()).toBe('later');
    const unique = agreement.locator('.unique li');
    expect(await unique.locator('.model').allTextContents()).toEqual(['v/beta', 'v/alpha']);
    expect(await unique.locator('.prose').allTextContents()).toEqual(['an edge case', 'a side note']);
    expect(await unique.locator('.badge').allTextContents()).toEqual(['kept', 'left out']);
    expect(await agreement.locator(':is(img, script, [onerror], a)').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('.outcome + .agreement').count()).toBe(1);
    await screenshot(page, 'view-agreement-wide');
    await page.setViewportSize({ width: 420, height: 900 });
    await screenshot(page, 'view-agreement-narrow-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'view-agreement-narrow-dark');
  });

  it('shows no agreement section for a run without the account', async () => {
    await open(`runs/${other}`);
    await expect.poll(() => page.locator('.final .body').count()).toBe(1);
    expect(await page.locator('.agreement').count()).toBe(0);
  });

  it('shows one answer at a time at 420 px, switched with the arrow keys', async () => {
    await open(`runs/${finished}`, 420);
    const visible = page.locator('.column:visible h2');
    await expect.poll(() => visible.allTextContents()).toEqual(['v/alpha']);
    await page.locator('#tab-0').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => visible.allTextContents()).toEqual(['v/beta']);
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-1');
    await screenshot(page, 'view-run-narrow-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'view-run-narrow-dark');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => visible.allTextContents()).toEqual(['v/alpha']);
  });

  it('updates a running run’s page until it ends', async () => {
    const { id } = mustStart(await harness.app.service.start(runRequest('A slow one', { models: ['v/alpha', 'v/slow'] }, harness.config)));
    await open(`runs/${id}`);
    await expect.poll(() => page.locator('main').getAttribute('data-status')).toBe('running');
    expect(await page.locator('.column').nth(1).locator('.pending').textContent()).toBe('Answering…');
    await expect.poll(() => page.locator('main').getAttribute('data-status'), { timeout: 10_000 }).toBe('complete');
    expect(await page.locator('.column').nth(1).locator('.body').textContent()).toBe('Slow but sure.');
  });
});
