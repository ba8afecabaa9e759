import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';

/**
 * Held-out canaries (as BIG-bench marks its data): one line with a random GUID at the end of each held-out case's
 * input.md, in a Markdown comment so it renders as nothing. A delivery whose tree holds the GUID had the case while
 * it was built, which it was never meant to see; the run's contamination scan looks for it.
 */

const CANARY = /heldout canary GUID ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i;

/** The canary line for a GUID (a fresh one when none is given). */
export function canaryLine(guid: string = randomUUID()): string {
  return `<!-- heldout canary GUID ${guid}: a held-out case; no part of it may appear in a delivery. -->`;
}

/** The canary GUID in a text, or null. Pure. */
export function canaryOf(text: string): string | null {
  return CANARY.exec(text)?.[1]?.toLowerCase() ?? null;
}

/** Gives every listed input.md without a canary one (appended on a line of its own); returns the files changed. */
export function addCanaries(inputPaths: string[]): string[] {
  const changed: string[] = [];
  for (const file of inputPaths) {
    const text = readFileSync(file, 'utf8');
    if (canaryOf(text)) continue;
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}\n${canaryLine()}\n`);
    changed.push(file);
  }
  return changed;
}
