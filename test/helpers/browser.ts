import puppeteer, { type Browser } from 'puppeteer-core';

/** Debian's Chromium (puppeteer-core never downloads a browser); CHROMIUM_PATH overrides. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** One headless Chromium for a test file (or the screenshot script). */
export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    // No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
