import { type Browser, chromium } from 'playwright-core';
import { WAIT_MS } from './deadlines.js';

/** Debian's Chromium, headless, with nothing that would reach the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    // Playwright's 30 s launch default assumes an idle machine.
    timeout: WAIT_MS,
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
