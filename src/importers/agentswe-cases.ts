import { readFileSync } from 'node:fs';
import type { FileAccount } from './agentswe-account.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import type { PackageDraft } from './package-writer.js';
import { asObject, asStringList, asText } from './values.js';

export type Split = 'dev' | 'heldout';

/** One case of the package: its id, split, and (optimization) its row of the contract's split. */
export interface CaseEntry {
  id: string;
  split: Split;
  /** The contract's split row (optimization: `case_id`, `upstream_id`, `timeout_seconds`, …), or null. */
  row: Record<string, unknown> | null;
  /** The case's input.md text. */
  input: string;
  /** `assets/…` paths input.md names that the package does not hold (binaries the published index lacks). */
  absentAssets: string[];
}

/**
 * The case ids of each split: task.json's protocol lists (creation, editing), or the contract's
 * `splits.{dev,hidden}.cases[]` objects (optimization; plain id lists under `heldout`/`test` are read as well).
 */
export function caseIds(
  protocol: Record<string, unknown> | null,
  contract: Record<string, unknown> | null,
): Record<Split, { id: string; row: Record<string, unknown> | null }[] | null> {
  const splits = asObject(contract?.splits);
  const fromSplit = (v: unknown) => {
    const list = asObject(v)?.cases ?? v;
    if (asStringList(list)) return asStringList(list)!.map((id) => ({ id, row: null }));
    if (!Array.isArray(list)) return null;
    const out = list
      .map((r) => asObject(r))
      .filter((r): r is Record<string, unknown> => !!r && !!asText(r.case_id ?? r.id))
      .map((r) => ({ id: asText(r.case_id ?? r.id)!, row: r }));
    return out.length ? out : null;
  };
  const list = (v: unknown) => asStringList(v)?.map((id) => ({ id, row: null })) ?? null;
  return {
    dev: list(protocol?.dev_cases) ?? fromSplit(splits?.dev),
    heldout: list(protocol?.heldout_cases) ?? fromSplit(splits?.hidden ?? splits?.heldout ?? splits?.test),
  };
}

/**
 * Puts every case into `cases/<split>/<id>/`: input.md and assets/ merged file by file from the split's roots (the
 * published index keeps byte-identical files once, so a case may be split across benchmark/ and builder_package/),
 * overlays applied. Other files of a case directory are kept beside input.md (never staged into a sandbox). An
 * optimization case also gets the one-row `assets/input.jsonl` the AgentSWE adapter builds from its input.md.
 */
export function importCases(
  layout: AgentSweLayout,
  protocol: Record<string, unknown> | null,
  draft: PackageDraft,
  account: FileAccount,
  missing: string[],
): CaseEntry[] {
  const ids = caseIds(protocol, layout.contract);
  const out: CaseEntry[] = [];
  for (const split of ['dev', 'heldout'] as const) {
    const roots = layout.caseRoots[split];
    const present = [...new Set(roots.flatMap((r) => layout.view.subdirs(r)))].sort();
    const named = ids[split];
    const list = named ?? present.map((id) => ({ id, row: null }));
    if (!named)
      account.record(
        'task.json',
        'case input',
        `no ${split} case list in the protocol or contract: every case directory was taken`,
      );
    for (const extra of present.filter((p) => !list.some((c) => c.id === p))) {
      for (const r of roots)
        for (const f of layout.view.list(`${r}/${extra}`))
          account.record(layout.view.resolve(f)!.rel, 'unmapped', `a ${split} case the protocol does not name`);
    }
    if (list.length === 0)
      missing.push(`${split === 'dev' ? 'development' : 'held-out'} cases (${roots.join(' or ')})`);
    for (const c of list) {
      const input = copyCase(layout, roots, split, c.id, draft, account, missing);
      if (input === null) continue;
      const refs = [
        ...new Set([...input.matchAll(/\bassets\/[^\s)\]"'`<>]+/g)].map((m) => m[0].replace(/[.,;:]+$/, ''))),
      ];
      // a reference may name a directory (`assets/repository`): present when any file lies under it
      const held = (r: string) => {
        const at = `cases/${split}/${c.id}/${r.replace(/\/+$/, '')}`;
        return draft.files.has(at) || [...draft.files.keys()].some((f) => f.startsWith(`${at}/`));
      };
      const absentAssets = refs.filter((r) => !held(r)).sort();
      out.push({ id: c.id, split, row: c.row, input, absentAssets });
      if (layout.family === 'optimization') {
        // The adapter's make_request: one row, Python's json.dumps spacing, ensure_ascii=False.
        const row = [
          ['id', c.id],
          ['source', 'agentswe-optimization'],
          ['case_id', c.id],
          ['instruction', input],
        ];
        draft.put(
          `cases/${split}/${c.id}/assets/input.jsonl`,
          `{${row.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}\n`,
        );
      }
    }
  }
  return out;
}

function copyCase(
  layout: AgentSweLayout,
  roots: string[],
  split: Split,
  id: string,
  draft: PackageDraft,
  account: FileAccount,
  missing: string[],
): string | null {
  const { view } = layout;
  const taken = new Map<string, string>();
  for (const root of roots) {
    for (const f of view.list(`${root}/${id}`)) {
      const rel = f.slice(root.length + id.length + 2);
      if (!taken.has(rel)) taken.set(rel, f);
      else
        account.record(
          view.resolve(f)!.rel,
          'superseded',
          `the same case file as ${view.resolve(taken.get(rel)!)!.rel}`,
        );
    }
  }
  if (!taken.has('input.md')) {
    missing.push(
      `${split} case ${id}: input.md (looked in ${roots.map((r) => `${r}/${id}`).join(', ')}${layout.lang ? ` and lang/${layout.lang}/` : ''})`,
    );
    return null;
  }
  const dest = `cases/${split}/${id}`;
  // A per-case fixture app in the assets (desktop-gui-automation's serve.py + index.html) is served by the harness
  // and excluded from the candidate's view: it stays evaluator-side.
  const fixtureApp = taken.has('assets/serve.py')
    ? new Set(['assets/serve.py', 'assets/index.html'])
    : new Set<string>();
  for (const [rel, logical] of [...taken].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const hit = view.resolve(logical)!;
    for (const s of view.superseded(logical)) account.record(s, 'superseded', `replaced by ${hit.rel}`);
    if (fixtureApp.has(rel)) {
      const to = `${dest}/service/${rel.slice('assets/'.length)}`;
      draft.put(to, readFileSync(hit.abs));
      account.record(
        hit.rel,
        'unmapped',
        `${to}: the case's fixture app, which the harness serves and keeps out of the candidate's view; kept evaluator-side, not run (it needs the package's evaluator browser-control service, which heldout has no counterpart for)`,
      );
      continue;
    }
    const via = hit.overlay ? ` (the ${hit.overlay.name} ${hit.overlay.kind} overlay's copy)` : '';
    if (rel === 'input.md') {
      draft.put(`${dest}/input.md`, readFileSync(hit.abs));
      account.record(hit.rel, 'case input', `${dest}/input.md${via}`);
    } else if (rel.startsWith('assets/')) {
      draft.put(`${dest}/${rel}`, readFileSync(hit.abs));
      account.record(hit.rel, 'asset', `${dest}/${rel}${via}`);
    } else if (/\.pre-\d{4}/.test(rel)) {
      account.record(hit.rel, 'unmapped', 'a pre-hardening backup of the case file beside it');
    } else {
      draft.put(`${dest}/${rel}`, readFileSync(hit.abs));
      account.record(
        hit.rel,
        'case input',
        `${dest}/${rel}${via}: kept beside input.md, not staged into the sandbox (heldout stages input.md and assets/)`,
      );
    }
  }
  return readFileSync(view.resolve(taken.get('input.md')!)!.abs, 'utf8');
}
