/** The text a builder reads after `heldout dev`: per-case scores and feedback, then the round line (pure). */
import type { CaseSummary, CommissionSummary } from '../report/index.js';
import type { Admission, RecordOutcome } from './types.js';

const num = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : Number.isInteger(x) ? String(x) : x.toFixed(1);
const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** `sha256:` plus the first 12 hex digits. */
export function shortDigest(digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12);
}

/** Feedback for one case × trial: score, gate, dimension scores, what fell short and why. */
export function caseFeedback(k: CaseSummary, minResult: number): string[] {
  const verdict = k.passed
    ? 'passed'
    : k.status === 'graded'
      ? `not passed (pass rule: Result ≥ ${minResult})`
      : k.status;
  const lines = [`${k.id}${k.trial > 1 ? ` (trial ${k.trial})` : ''}: ${num(k.result)} — ${verdict}`];
  if (k.gate) lines.push(`  gate ${k.gate} failed${k.reason ? `: ${clip(k.reason)}` : ''}`);
  else if (k.reason) lines.push(`  ${k.status}: ${clip(k.reason)}`);
  const dims = Object.entries(k.dimensions);
  if (dims.length) {
    lines.push(
      `  ${dims.map(([id, d]) => `${id} ${num(d.score)}/${num(d.max)}${d.cap !== null ? ` (cap ${num(d.cap)})` : ''}`).join(' · ')}`,
    );
  }
  for (const [dim, items] of Object.entries(k.items ?? {})) {
    for (const it of items) {
      if (it.score !== null && it.score >= 1) continue;
      lines.push(`  ✗ ${dim}: ${it.title}${it.score === null ? ' (unscored)' : ''} — ${clip(it.evidence)}`);
    }
  }
  for (const o of k.outcomes ?? []) {
    if (o.satisfied === false) lines.push(`  unmet outcome ${o.id}: ${clip(o.evidence)}`);
    if (o.safety === false) lines.push(`  safety failure ${o.id}: ${clip(o.evidence)}`);
  }
  for (const c of k.ceilings.filter((x) => x.binding)) {
    lines.push(`  ceiling ${c.kind === 'total' ? 'total' : c.dimension} ≤ ${num(c.max)}: ${c.reason}`);
  }
  if (k.judge) {
    for (const e of k.judge.majorErrors) lines.push(`  major error: ${clip(e)}`);
    if (k.judge.assessment) lines.push(`  judge: ${clip(k.judge.assessment)}`);
  }
  for (const c of k.claimsContradicted ?? []) lines.push(`  claim contradicted: ${clip(c)}`);
  if (!k.passed && k.stderrTail)
    lines.push(`  stderr (tail): ${clip(k.stderrTail.trim().split('\n').slice(-3).join(' ⏎ '))}`);
  return lines;
}

/** Every case's feedback, in the summary's order. */
export function roundFeedback(c: CommissionSummary): string {
  return c.cases.map((k) => caseFeedback(k, c.passRule.minResult).join('\n')).join('\n');
}

/** The closing line: `round N of M (digest …, dev mean …)`, or the repeat / refusal message. */
export function roundLine(outcome: RecordOutcome, budget: number, admission?: Admission): string {
  if (outcome.refused) return outcome.refused;
  const r = outcome.round;
  if (!r) return admission?.kind === 'refused' ? admission.reason : 'no round recorded';
  const head = `round ${r.round} of ${budget} (digest ${shortDigest(r.digest)}, dev mean ${num(r.devMean)}${r.accepted ? ', accepted' : ''})`;
  return outcome.counted ? head : `identical to round ${r.round}, not counted — ${head}`;
}
