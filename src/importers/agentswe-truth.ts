import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileAccount } from './agentswe-account.js';
import type { CaseEntry } from './agentswe-cases.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import { asObject } from './values.js';

/** Per-case evaluator truth, keyed `<split>/<id>`; each value is what becomes the case's truth.json. */
export type CaseTruths = Map<string, Record<string, unknown>>;

const TEXT_CAP = 20_000;

/** A file of the evaluator tree named for a case (`truth/test_001.json`, `test_001.oracle.json`). */
function caseFileKey(rel: string, ids: Set<string>): { id: string; key: string } | null {
  const base = path.posix.basename(rel);
  const m = /^(.+?)((?:\.[a-z]+)*)\.([a-z0-9]+)$/i.exec(base);
  if (!m || !ids.has(m[1]!)) return null;
  return { id: m[1]!, key: `${path.posix.dirname(rel)}/{case}${m[2]}` };
}

/**
 * Finds the evaluator-owned truth of every case — files named for a case (security's `fixtures/truth/<case>.json`,
 * editing's `evaluator/cases/<case>.json`, `hidden_issued/<case>.oracle.json`, repo's `hidden_tests/<case>.py`) and
 * JSON objects keyed by case ids (formal's `case_policy.json`, pptx's `case_expectations.json`, optimization's
 * `task_metadata.json`), plus an optimization case's contract row — and returns it per case. Everything stays
 * evaluator-side: truth.json is never staged into a sandbox, and the judge reads it as the case's reference.
 */
export function caseTruths(layout: AgentSweLayout, cases: CaseEntry[], account: FileAccount): CaseTruths {
  const { view } = layout;
  const ids = new Set(cases.map((c) => c.id));
  const byId = new Map(cases.map((c) => [c.id, c]));
  const out: CaseTruths = new Map();
  const put = (c: CaseEntry, key: string, value: unknown) => {
    const k = `${c.split}/${c.id}`;
    const t = out.get(k) ?? { judgeReference: {} as Record<string, unknown> };
    (t.judgeReference as Record<string, unknown>)[key] = value;
    out.set(k, t);
  };
  for (const c of cases) if (c.row) put(c, 'task_contract.json splits', c.row);
  const dirs = [...layout.evaluatorDirs, ...(layout.family === 'editing' ? ['hidden_issued'] : [])];
  const seen = new Set<string>();
  for (const dir of dirs) {
    for (const logical of view.list(dir)) {
      const hit = view.resolve(logical)!;
      if (seen.has(hit.rel)) continue;
      seen.add(hit.rel);
      const perCase = caseFileKey(logical, ids);
      if (perCase) {
        const c = byId.get(perCase.id)!;
        const text = readFileSync(hit.abs, 'utf8');
        put(c, perCase.key, logical.endsWith('.json') ? parseOr(text) : cap(text));
        account.record(
          hit.rel,
          'truth → judge context',
          `cases/${c.split}/${c.id}/truth.json judgeReference["${perCase.key}"] (evaluator-owned: the judge's reference, never staged)`,
        );
        continue;
      }
      if (!logical.endsWith('.json')) continue;
      const obj = asObject(parseOr(readFileSync(hit.abs, 'utf8')));
      const keys = Object.keys(obj ?? {});
      const hits = keys.filter((k) => ids.has(k));
      if (!obj || hits.length === 0 || hits.length * 2 < keys.length) continue;
      const key = logical.replace(/\.json$/, '');
      for (const k of hits) put(byId.get(k)!, key, obj[k]);
      account.record(
        hit.rel,
        'truth → judge context',
        `keyed by case: split into each case's truth.json judgeReference["${key}"] (${hits.length} cases)`,
      );
    }
  }
  return out;
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return cap(text);
  }
}

function cap(text: string): string {
  return text.length > TEXT_CAP ? `${text.slice(0, TEXT_CAP)}\n[… ${text.length - TEXT_CAP} more characters]` : text;
}
