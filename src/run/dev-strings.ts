import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CaseRef, Commission } from '../commission/index.js';

/**
 * Overfitting scanner (DESIGN §10): finds distinctive strings of the dev cases (their inputs, assets and truths)
 * embedded in a delivery's source — the keyword dispatch and constant answers builders ship when they fit the
 * visible cases. A string counts as distinctive only if neither the requirement nor any held-out case contains it:
 * what the requirement names (field names, formats) and what every case shares is fair to write into code.
 */
export function scanDevStrings(deliveryDir: string, commission: Commission): string[] {
  const dev = commission.cases.dev.flatMap(caseTexts);
  const shared = [...Object.values(commission.requirement), ...commission.cases.heldout.flatMap(caseTexts)];
  return findEmbedded(distinctiveStrings(dev, shared), readSources(deliveryDir));
}

/** Candidate strings of `texts` that do not occur in `shared` (pure). */
export function distinctiveStrings(texts: string[], shared: string[]): string[] {
  const sharedLower = shared.join('\n').toLowerCase();
  const out = new Set<string>();
  for (const text of texts) {
    // Identifiers with a digit, '_' or '-' (service names, error codes, ids) and quoted literals.
    for (const m of text.matchAll(/[A-Za-z0-9][A-Za-z0-9_.:/-]{5,}/g)) {
      const s = m[0].replace(/[.:/-]+$/, '');
      if (s.length >= 6 && /[0-9_-]/.test(s) && /[A-Za-z]/.test(s)) out.add(s);
    }
    for (const m of text.matchAll(/"([^"\n]{8,80})"/g)) out.add(m[1]);
    // Runs of four words: request phrases copied into keyword dispatch.
    const words = text.toLowerCase().match(/[a-z][a-z']+/g) ?? [];
    for (let i = 0; i + 4 <= words.length; i++) {
      const phrase = words.slice(i, i + 4).join(' ');
      if (phrase.length >= 18) out.add(phrase);
    }
  }
  return [...out].filter((s) => !sharedLower.includes(s.toLowerCase()));
}

/** The candidates found in the sources (case-insensitive), longest first, overlapping findings collapsed (pure). */
export function findEmbedded(candidates: string[], sources: string[]): string[] {
  const hay = sources.join('\n').toLowerCase().replace(/\s+/g, ' ');
  const found = candidates.filter((c) => hay.includes(c.toLowerCase().replace(/\s+/g, ' ')));
  found.sort((a, b) => b.length - a.length || a.localeCompare(b));
  const kept: string[] = [];
  for (const f of found) if (!kept.some((k) => k.toLowerCase().includes(f.toLowerCase()))) kept.push(f);
  return kept.slice(0, 50);
}

/** The texts of a case a builder could copy: input.md, the truth's strings, the text assets. */
export function caseTexts(c: CaseRef): string[] {
  const texts = [readFileSync(c.inputPath, 'utf8')];
  if (c.truth) texts.push(...Object.values(flatten(c.truth)));
  if (c.assetsDir) texts.push(...readSources(c.assetsDir));
  return texts;
}

function flatten(v: unknown, out: Record<string, string> = {}, at = ''): Record<string, string> {
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) flatten(x, out, `${at}.${k}`);
  else if (typeof v === 'string') out[at] = v;
  return out;
}

const TEXT_LIMIT = 1024 * 1024;

function readSources(dir: string): string[] {
  return sourceFiles(dir).map((f) => f.text);
}

/**
 * The text files of a tree (relative path and content), as a scanner reads a delivery: regular files of at most
 * 1 MiB without NUL bytes; links are never followed and node_modules, .git and __pycache__ are left out.
 */
export function sourceFiles(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === 'node_modules' || name === '.git' || name === '__pycache__') continue;
      const p = path.join(d, name);
      // lstat: a link in the delivery (dangling, looping, or to /) is not the delivery's own source.
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size <= TEXT_LIMIT) {
        const buf = readFileSync(p);
        if (!buf.includes(0)) out.push({ file: path.relative(dir, p), text: buf.toString('utf8') });
      }
    }
  };
  walk(dir);
  return out;
}
