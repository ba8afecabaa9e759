import { readFileSync } from 'node:fs';
import { type Commission, canaryOf } from '../commission/index.js';
import { caseTexts, distinctiveStrings, sourceFiles } from './dev-strings.js';

/**
 * Held-out contamination scan: the overfitting scanner turned around. The dev-strings scanner asks whether a
 * delivery hard-codes the cases its builder could see; this asks whether it holds the cases its builder could
 * NOT see — a held-out case's canary GUID, or a string distinctive of a held-out case (one that neither the
 * requirement, nor any dev case, nor the starter contains). Either is evidence the builder had held-out cases.
 */
// A type, not an interface: the summary's loose objects take it as it is.
export type HeldoutLeak = {
  /** Held-out cases whose canary GUID is in the delivery, with the delivery file it is in. */
  canaries: { case: string; file: string }[];
  /** Distinctive held-out strings found in the delivery: the case they are from and the file they are in. */
  strings: { case: string; text: string; file: string }[];
};

/** At most this many strings per case, and in all: enough to judge, short enough to read. */
const PER_CASE = 5;
const MAX_STRINGS = 20;

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
const words = (text: string) => text.toLowerCase().match(/[a-z][a-z']+/g) ?? [];

/**
 * Runs of the case's four-word phrases that the delivery holds, merged into the longest span it holds whole: a
 * copied sentence is one finding, not every window of it. Other strings pass through. Pure.
 */
export function mergePhraseRuns(texts: string[], found: string[], held: (s: string) => boolean): string[] {
  const phrases = new Set(found.filter((s) => /^[a-z']+( [a-z']+){3}$/.test(s)));
  const out = found.filter((s) => !phrases.has(s));
  const used = new Set<string>();
  for (const text of texts) {
    const w = words(text);
    const window = (i: number) => w.slice(i, i + 4).join(' ');
    for (let i = 0; i + 4 <= w.length; i++) {
      if (!phrases.has(window(i)) || used.has(window(i))) continue;
      let end = i;
      while (end + 5 <= w.length && phrases.has(window(end + 1))) end++;
      // The whole run when the delivery holds it; else the longest held run from its start.
      for (let last = end; last >= i; last--) {
        const span = w.slice(i, last + 4).join(' ');
        if (last === i || held(span)) {
          out.push(span);
          for (let k = i; k <= last; k++) used.add(window(k));
          break;
        }
      }
      i = end;
    }
  }
  for (const p of phrases) if (!used.has(p)) out.push(p);
  return [...new Set(out)];
}

/** Scans a delivery's tree for held-out canaries and distinctive held-out strings; null when there are none. */
export function scanHeldoutLeak(deliveryDir: string, commission: Commission): HeldoutLeak | null {
  const hay = sourceFiles(deliveryDir).map((f) => ({ file: f.file, text: norm(f.text) }));
  const fileWith = (needle: string) => hay.find((f) => f.text.includes(norm(needle)))?.file ?? null;
  const shared = [
    ...Object.values(commission.requirement),
    ...commission.cases.dev.flatMap(caseTexts),
    ...(commission.starterDir ? sourceFiles(commission.starterDir).map((f) => f.text) : []),
  ];
  const canaries: HeldoutLeak['canaries'] = [];
  const strings: HeldoutLeak['strings'] = [];
  const reported: string[] = [];
  for (const c of commission.cases.heldout) {
    const guid = canaryOf(readFileSync(c.inputPath, 'utf8'));
    const inFile = guid ? fileWith(guid) : null;
    // A canary found says the case was copied; its text, found too, would only say it again.
    if (inFile) {
      canaries.push({ case: c.id, file: inFile });
      continue;
    }
    const texts = caseTexts(c).map((t) => (guid ? t.replace(new RegExp(`[^\\n]*${guid}[^\\n]*`, 'gi'), '') : t));
    const found = distinctiveStrings(texts, shared).filter((s) => fileWith(s) !== null);
    const merged = mergePhraseRuns(texts, found, (s) => fileWith(s) !== null).sort((a, b) => b.length - a.length);
    let n = 0;
    for (const s of merged) {
      // Overlapping findings (a phrase and its words, one case's and another's) say the same thing once.
      if (n >= PER_CASE || reported.some((r) => r.includes(s.toLowerCase()))) continue;
      reported.push(s.toLowerCase());
      strings.push({ case: c.id, text: s, file: fileWith(s)! });
      n++;
    }
  }
  strings.splice(MAX_STRINGS);
  return canaries.length || strings.length ? { canaries, strings } : null;
}
