import { type CaseMeta, caseOutputPath } from '../run/index.js';
import { isFlaky, markRepeats } from './flaky.js';
import type { CommissionSummary, Summary } from './schema.js';
import { type BuildOptions, buildSummary, summarizeCommission } from './summarize.js';

/** The contamination scan's findings as the report shows them: `<case>: canary in <file>`, `<case>: "<text>" in <file>`. */
function leakFindings(leak: NonNullable<CaseMeta['delivery']['heldoutLeak']>): string[] {
  return [
    ...leak.canaries.map((x) => `${x.case}: canary in ${x.file}`),
    ...leak.strings.map((x) => `${x.case}: ${JSON.stringify(x.text)} in ${x.file}`),
  ];
}

/**
 * Groups the case records of a run into summary entries, commission × delivery × split, when the run ends (or when
 * `--merge-reports` replays them), and builds the summary with the gate and coverage given. Pure: the same records
 * give the same summary; entries are sorted by commission, delivery label and split, and an optimization candidate
 * is measured against the starter of the same split.
 */
export function summarizeMetas(
  metas: CaseMeta[],
  run: Summary['run'],
  options: Omit<BuildOptions, 'run' | 'commissions'> = {},
): Summary {
  const entries = entriesOf(metas);
  if (!options.gate?.excludeFlaky) return buildSummary({ ...options, run, commissions: entries });
  // The gate's figures come from the same records less the flaky ones; the report's stay whole.
  const flaky = metas.filter((m) => isFlaky(m.repeats, m.commission.minResult));
  const steady = metas.filter((m) => !flaky.includes(m));
  const excluded = flaky.map((m) => `${m.commission.id}/${m.delivery.label}/${m.split}/${m.grade.id}#${m.grade.trial}`);
  return buildSummary({ ...options, run, commissions: entries, gateOn: entriesOf(steady), excludedFlaky: excluded });
}

function entriesOf(metas: CaseMeta[]): CommissionSummary[] {
  const groups = new Map<string, CaseMeta[]>();
  for (const m of metas) {
    const key = `${m.commission.id}\0${m.delivery.label}\0${m.delivery.digest}\0${m.split}`;
    const g = groups.get(key);
    if (g) g.push(m);
    else groups.set(key, [m]);
  }
  const entries: CommissionSummary[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    const starter =
      first.commission.family === 'optimization' && first.delivery.role === 'candidate'
        ? metas.filter(
            (m) => m.commission.id === first.commission.id && m.delivery.role === 'starter' && m.split === first.split,
          )
        : [];
    // Present only when the contamination scan found something (documents without it stay as they were).
    const leak = group.find((m) => m.delivery.heldoutLeak)?.delivery.heldoutLeak;
    const semantics = first.commission.tau2Semantics;
    entries.push({
      ...summarizeCommission({
        id: first.commission.id,
        family: first.commission.family,
        split: first.split,
        delivery: {
          path: first.delivery.dir,
          digest: first.delivery.digest,
          frozen: first.delivery.frozen,
          label: first.delivery.label,
          role: first.delivery.role,
        },
        cases: group.map((m) => m.grade),
        passRule: { minResult: first.commission.minResult },
        optimization: starter.length > 0 ? { starter: starter.map((m) => m.grade) } : null,
        hardCodedDevStrings: first.delivery.devStrings,
        noModelCalls: first.commission.modelRequired ? undefined : false,
        heldoutLeak: leak ? leakFindings(leak) : undefined,
        recordOf: (id, trial) =>
          `${caseOutputPath(first.commission.id, first.delivery.label, first.split, id, trial)}.meta.json`,
      }),
      ...(semantics ? { semantics } : {}),
    });
    markSubstitutions(entries[entries.length - 1], group);
    markRepeats(entries[entries.length - 1], group);
  }
  return entries.sort(
    (a, b) =>
      a.id.localeCompare(b.id) ||
      (a.delivery.label ?? '').localeCompare(b.delivery.label ?? '') ||
      a.split.localeCompare(b.split),
  );
}

/** Issue 19: each row whose case ran in substituted images says which (rows are unique by case and trial). */
function markSubstitutions(entry: CommissionSummary, group: CaseMeta[]): void {
  const byRow = new Map<string, NonNullable<CaseMeta['substitutedImages']>>();
  for (const m of group) {
    if (m.substitutedImages?.length) byRow.set(`${m.grade.id}\0${m.grade.trial}`, m.substitutedImages);
  }
  if (byRow.size === 0) return;
  const union = new Map<string, { from: string; to: string }>();
  for (const row of entry.cases) {
    const s = byRow.get(`${row.id}\0${row.trial}`);
    if (!s) continue;
    row.substitutedImages = s.map((x) => ({ ...x }));
    for (const x of s) union.set(`${x.from}\0${x.to}`, { from: x.from, to: x.to });
  }
  entry.substitutedImages = [...union.values()];
}
