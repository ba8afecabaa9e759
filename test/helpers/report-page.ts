import type { Page } from 'playwright-core';

// index.html loads an entry's case list and a case's detail from its chunk scripts when asked (src/report/html-data.ts):
// these click and wait until what was asked for is on the page.

/** Clicks a results row and waits until its case list has loaded and is shown. */
export async function openEntry(page: Page, rowSelector: string): Promise<void> {
  await page.click(rowSelector);
  await page.waitForSelector('#cases:not([data-loading]) #case-rows .case-row');
}

/** Clicks a listed case and waits until the drill-down shows it. */
export async function openCase(page: Page, caseId: string): Promise<void> {
  await page.click(`.case-row[data-case="${caseId}"]`);
  await page.waitForSelector(`#drilldown[data-case="${caseId}"]:not([data-loading]):not([hidden])`);
}
