import { pairedDifference } from '../metrics/index.js';
import { deliveryLabel } from './format.js';
import type { CaseSummary, CommissionSummary, Paired, SplitName, Summary } from './schema.js';

/** A case's verdict across its scored trials: every one passed, none did, or some did. */
export type CasePass = 'pass' | 'fail' | 'mixed';

/** One case both sides graded: its mean Result on each side (over scored trials) and how its verdict moved. */
export interface CaseDiff {
  id: string;
  a: number;
  b: number;
  diff: number;
  aPass: CasePass;
  bPass: CasePass;
  /** Set when the case passed on one side and failed on the other (a mixed side never flips). */
  flipped: 'pass→fail' | 'fail→pass' | null;
}

/** Names an entry of a summary for a comparison. */
export interface EntryRef {
  commission: string;
  delivery: string;
  split: SplitName;
  digest: string;
  mean: number | null;
}

/** B against A for one commission and split: per-case paired differences and their statistics. */
export interface EntryComparison {
  commission: string;
  split: SplitName;
  a: EntryRef;
  b: EntryRef;
  /** B − A over the cases both graded (W = B above A). */
  paired: Paired;
  cases: CaseDiff[];
  flipped: CaseDiff[];
  /** Case ids graded on one side only: left out of the pairs. */
  onlyA: string[];
  onlyB: string[];
}

/** Two runs (or two deliveries of one run) compared entry by entry. */
export interface Comparison {
  a: { runId: string; startedAt: string };
  b: { runId: string; startedAt: string };
  pairs: EntryComparison[];
  /** Entries of either side that found no partner. */
  unmatched: { side: 'a' | 'b'; entry: EntryRef }[];
}

/** Which entries to compare; unset means every one that finds a partner. */
export interface CompareSelection {
  /** The delivery label on side A (needed, with `deliveryB`, to compare two deliveries of one run). */
  deliveryA?: string;
  deliveryB?: string;
  commission?: string;
  split?: SplitName;
}

function ref(c: CommissionSummary): EntryRef {
  return {
    commission: c.id,
    delivery: deliveryLabel(c),
    split: c.split,
    digest: c.delivery.digest,
    mean: c.result.mean,
  };
}

const scored = (x: CaseSummary) => x.status === 'graded' || x.status === 'gate-failed';

/** Per case id, in case order: the mean Result over its scored trials and whether they all, none or some passed. */
export function perCase(cases: readonly CaseSummary[]): Map<string, { mean: number; pass: CasePass }> {
  const acc = new Map<string, { sum: number; n: number; passed: number }>();
  for (const x of cases) {
    if (!scored(x)) continue;
    const a = acc.get(x.id) ?? { sum: 0, n: 0, passed: 0 };
    a.sum += x.result ?? 0;
    a.n++;
    if (x.passed) a.passed++;
    acc.set(x.id, a);
  }
  const out = new Map<string, { mean: number; pass: CasePass }>();
  for (const [id, a] of acc) {
    out.set(id, { mean: a.sum / a.n, pass: a.passed === a.n ? 'pass' : a.passed === 0 ? 'fail' : 'mixed' });
  }
  return out;
}

/**
 * Compares entry B with entry A case by case (pure, seeded by both digests): the cases both graded are paired,
 * their mean Results differenced (B − A), and pairedDifference gives W/L/T, the mean difference, its paired
 * bootstrap CI and the sign test. A case is flipped when it passed on one side and failed on the other.
 */
export function compareEntries(a: CommissionSummary, b: CommissionSummary): EntryComparison {
  const ca = perCase(a.cases);
  const cb = perCase(b.cases);
  const cases: CaseDiff[] = [];
  const onlyA: string[] = [];
  for (const [id, x] of ca) {
    const y = cb.get(id);
    if (!y) {
      onlyA.push(id);
      continue;
    }
    const flipped =
      x.pass === 'pass' && y.pass === 'fail'
        ? 'pass→fail'
        : x.pass === 'fail' && y.pass === 'pass'
          ? 'fail→pass'
          : null;
    cases.push({ id, a: x.mean, b: y.mean, diff: y.mean - x.mean, aPass: x.pass, bPass: y.pass, flipped });
  }
  cases.sort((p, q) => (p.id < q.id ? -1 : p.id > q.id ? 1 : 0));
  const onlyB = [...cb.keys()].filter((id) => !ca.has(id)).sort();
  const paired: Paired = {
    ...pairedDifference(cases, { seed: `${a.id}|${a.split}|${a.delivery.digest}|${b.delivery.digest}` }),
  };
  return {
    commission: a.id,
    split: a.split,
    a: ref(a),
    b: ref(b),
    paired,
    cases,
    flipped: cases.filter((c) => c.flipped !== null),
    onlyA: onlyA.sort(),
    onlyB,
  };
}

/**
 * The entry of `other` to compare `entry` with: same commission and split, and the same delivery label when
 * `label` is not given and `other` has it; otherwise the one entry of `other` with that label (or, with no label to
 * go by, its only candidate for the commission). Null when none, or when the choice would be a guess.
 */
export function partnerOf(
  entry: CommissionSummary,
  other: readonly CommissionSummary[],
  label?: string,
): CommissionSummary | null {
  const same = other.filter((c) => c.id === entry.id && c.split === entry.split);
  const byLabel = same.filter((c) => deliveryLabel(c) === (label ?? deliveryLabel(entry)));
  if (byLabel.length >= 1) return byLabel[0];
  if (label !== undefined) return null;
  const candidates = same.filter((c) => c.delivery.role !== 'starter');
  return candidates.length === 1 ? candidates[0] : null;
}

/**
 * Compares run B with run A (or, with both delivery labels given, two deliveries of one run): every selected entry
 * of A with its partner in B (`partnerOf`); entries without one are listed. Pure.
 */
export function compareSummaries(a: Summary, b: Summary, selection: CompareSelection = {}): Comparison {
  const pick = (s: Summary, label: string | undefined) =>
    s.commissions.filter(
      (c) =>
        (selection.commission === undefined || c.id === selection.commission) &&
        (selection.split === undefined || c.split === selection.split) &&
        (label === undefined || deliveryLabel(c) === label),
    );
  const left = pick(a, selection.deliveryA);
  const right = pick(b, selection.deliveryB);
  const pairs: EntryComparison[] = [];
  const used = new Set<CommissionSummary>();
  const unmatched: Comparison['unmatched'] = [];
  for (const ea of left) {
    const eb = partnerOf(
      ea,
      right.filter((c) => !used.has(c)),
      selection.deliveryB,
    );
    if (!eb || (a === b && eb === ea)) {
      unmatched.push({ side: 'a', entry: ref(ea) });
      continue;
    }
    used.add(eb);
    pairs.push(compareEntries(ea, eb));
  }
  for (const eb of right) if (!used.has(eb)) unmatched.push({ side: 'b', entry: ref(eb) });
  return {
    a: { runId: a.run.id, startedAt: a.run.startedAt },
    b: { runId: b.run.id, startedAt: b.run.startedAt },
    pairs,
    unmatched,
  };
}
