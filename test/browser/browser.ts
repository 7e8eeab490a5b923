import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium: the browser tests never download one. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where the browser tests leave their screenshots (git-ignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, '..', '..', 'test-artifacts');

/** One headless chromium for a test file, with a fresh profile and nothing reaching out on its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM}: install it with apt-get install -y chromium (Debian/Ubuntu), as .ci/run does`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A screenshot kept as a test artefact: test-artifacts/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
