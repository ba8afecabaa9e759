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

/** At most this many strings are reported: enough to judge, short enough to read. */
const MAX_STRINGS = 20;

/** Scans a delivery's tree for held-out canaries and distinctive held-out strings; null when there are none. */
export function scanHeldoutLeak(deliveryDir: string, commission: Commission): HeldoutLeak | null {
  const files = sourceFiles(deliveryDir);
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
  const hay = files.map((f) => ({ file: f.file, text: norm(f.text) }));
  const fileWith = (needle: string) => hay.find((f) => f.text.includes(norm(needle)))?.file ?? null;

  const canaries: HeldoutLeak['canaries'] = [];
  const strings: HeldoutLeak['strings'] = [];
  const shared = [
    ...Object.values(commission.requirement),
    ...commission.cases.dev.flatMap(caseTexts),
    ...(commission.starterDir ? sourceFiles(commission.starterDir).map((f) => f.text) : []),
  ];
  const reported = new Set<string>();
  for (const c of commission.cases.heldout) {
    const guid = canaryOf(readFileSync(c.inputPath, 'utf8'));
    const inFile = guid ? fileWith(guid) : null;
    if (inFile) canaries.push({ case: c.id, file: inFile });
    // The canary line itself is not a "string" finding: it is reported above, once.
    const texts = caseTexts(c).map((t) => (guid ? t.replace(new RegExp(`[^\\n]*${guid}[^\\n]*`, 'gi'), '') : t));
    const found = distinctiveStrings(texts, shared)
      .filter((s) => !reported.has(s.toLowerCase()))
      .map((s) => ({ s, file: fileWith(s) }))
      .filter((x): x is { s: string; file: string } => x.file !== null)
      .sort((a, b) => b.s.length - a.s.length);
    for (const { s, file } of found) {
      // Overlapping findings (a phrase and its words) say the same thing once, by the longest.
      if ([...reported].some((r) => r.includes(s.toLowerCase()))) continue;
      reported.add(s.toLowerCase());
      strings.push({ case: c.id, text: s, file });
    }
  }
  strings.splice(MAX_STRINGS);
  return canaries.length || strings.length ? { canaries, strings } : null;
}
