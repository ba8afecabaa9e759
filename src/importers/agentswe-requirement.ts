import { readFileSync } from 'node:fs';
import type { FileAccount } from './agentswe-account.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import type { PackageDraft } from './package-writer.js';

const REQUIRED = ['01', '02', '03', '04'] as const;
const NAMES: Record<string, string> = {
  '01': 'goal',
  '02': 'interface and delivery',
  '03': 'requirements and constraints',
  '04': 'resources',
};

/** The requirement texts by prefix (`01`…`04`, and `05` when the task has a fifth document). */
export type RequirementTexts = Record<string, string>;

/**
 * Puts the requirement documents into `requirement/` — the Builder-visible copy (creation: builder_package before
 * benchmark, file by file, since the published index keeps byte-identical copies once; overlays applied) — with a
 * fifth document and the non-Markdown inputs the interface calls normative (`input/schemas/*.json`) beside them.
 * Returns the texts by prefix; an absent one of 01–04 is added to `missing`.
 */
export function importRequirement(
  layout: AgentSweLayout,
  draft: PackageDraft,
  account: FileAccount,
  missing: string[],
): RequirementTexts {
  const { view } = layout;
  const texts: RequirementTexts = {};
  const files = layout.requirementDirs.map((d) => view.list(d));
  for (const prefix of ['01', '02', '03', '04', '05']) {
    let found: { logical: string; name: string; root: number } | null = null;
    files.forEach((list, root) => {
      if (found) return;
      const hit = list.find((f) => {
        const name = f.slice(layout.requirementDirs[root]!.length + 1);
        return !name.includes('/') && name.startsWith(`${prefix}_`) && name.endsWith('.md');
      });
      if (hit) found = { logical: hit, name: hit.slice(layout.requirementDirs[root]!.length + 1), root };
    });
    if (!found) {
      if ((REQUIRED as readonly string[]).includes(prefix))
        missing.push(
          `requirement document ${prefix}_*.md (${NAMES[prefix]}) in ${layout.requirementDirs.join(' or ')}${layout.lang ? ` or lang/${layout.lang}/` : ''}`,
        );
      continue;
    }
    const f = found as { logical: string; name: string; root: number };
    const hit = view.resolve(f.logical)!;
    const text = readFileSync(hit.abs, 'utf8');
    texts[prefix] = text;
    draft.put(`requirement/${f.name}`, text);
    const how = hit.overlay
      ? `the ${hit.overlay.name} ${hit.overlay.kind} overlay's copy of ${f.logical}`
      : f.root > 0
        ? `not in ${layout.requirementDirs[0]}; ${f.logical}`
        : f.logical;
    account.record(
      hit.rel,
      'requirement',
      `requirement/${f.name} (${prefix === '05' ? 'a fifth document' : NAMES[prefix]}; ${how})`,
    );
    for (const s of view.superseded(f.logical))
      account.record(s, 'superseded', `replaced by ${hit.rel} (${hit.overlay?.kind ?? 'base'} copy)`);
    // The evaluator's own copy of a creation document: kept for reference when it says something else.
    for (const [k, dir] of layout.requirementDirs.entries()) {
      if (k === f.root) continue;
      const other = view.resolve(`${dir}/${f.name}`);
      if (!other || account.has(other.rel)) continue;
      const same = readFileSync(other.abs, 'utf8') === text;
      draft.put(`source/${other.rel}`, readFileSync(other.abs));
      account.record(
        other.rel,
        same ? 'superseded' : 'kept in source/',
        same
          ? `the same text as requirement/${f.name}`
          : `${k > f.root ? "the evaluator's" : 'another'} copy, which differs from the Builder-visible requirement/${f.name}; kept as source/${other.rel}`,
      );
      for (const s of view.superseded(`${dir}/${f.name}`)) account.record(s, 'superseded', `replaced by ${other.rel}`);
    }
  }
  // Normative non-Markdown inputs (input/schemas/*.json, input/*.json): copied verbatim beside the documents.
  for (const [k, dir] of layout.requirementDirs.entries()) {
    for (const logical of files[k]!) {
      const rest = logical.slice(dir.length + 1);
      if (/^\d\d_[^/]*\.md$/.test(rest) || /\.pre-\d{4}/.test(rest) || rest.startsWith('repository/')) continue;
      const hit = view.resolve(logical)!;
      if (account.has(hit.rel)) continue;
      draft.put(`requirement/${rest}`, readFileSync(hit.abs));
      account.record(
        hit.rel,
        'requirement',
        `requirement/${rest} (a normative input the documents refer to, verbatim)`,
      );
    }
  }
  return texts;
}
