import { columnsOf, type ViewName } from './columns.js';
import {
  caseFailureMessage,
  conditionValue,
  conditionWhere,
  deliveryLabel,
  fmt,
  fmtCI,
  gateHeadline,
  perDelivery,
  thresholdsText,
} from './format.js';
import type { CommissionSummary, Summary } from './schema.js';

/**
 * Table cells cannot hold pipes or line breaks, and case text must not become live HTML where Markdown is rendered;
 * only a `<` that could open a tag is escaped so comparisons like `35 < 60` stay readable.
 */
function cell(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ')
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;');
}

const code = (s: string) => `\`${cell(s.replace(/`/g, "'"))}\``;

function row(cells: string[]): string {
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** A Markdown table of the entries under a view's columns: header, alignment row, one row per entry. */
function table(view: ViewName, commissions: CommissionSummary[]): string[] {
  const columns = columnsOf(view);
  return [
    row(columns.map((col) => col.header)),
    `|${columns.map((col) => (col.align === 'right' ? '--:' : '---')).join('|')}|`,
    ...commissions.map((c) => row(columns.map((col) => col.cell(c)))),
  ];
}

/** How many failing cases each entry lists, and how many not-run cases the partial note names; index.html has all. */
const FAILURES_SHOWN = 20;

/** The gate: its verdict, thresholds and each condition with its value (what turned the run red, or did not). */
function gateSection(summary: Summary): string[] {
  const { gate } = summary;
  const out = ['', `## Gate: ${gateHeadline(gate)}`, ''];
  if (gate.verdict === 'none') {
    out.push('No gate thresholds were set: the run is judged case by case, by each commission’s pass rule.');
    return out;
  }
  if (gate.verdict === 'not-recorded') {
    out.push('This report was read from a summary@1 document, which did not record the gate.');
    return out;
  }
  out.push(`Thresholds: ${cell(thresholdsText(gate))}`);
  if (gate.reason) out.push('', cell(gate.reason[0].toUpperCase() + gate.reason.slice(1)));
  if (gate.conditions.length) {
    out.push('', row(['Where', 'Condition', 'Threshold', 'Value', 'Met']), '|---|---|--:|--:|---|');
    for (const c of gate.conditions) {
      out.push(row([conditionWhere(c), c.condition, fmt(c.threshold), conditionValue(c), c.met ? 'yes' : '**no**']));
    }
  }
  return out;
}

/** The partial note: how many planned executions did not run and which, so a filtered run never reads as whole. */
function partialSection(summary: Summary): string[] {
  const p = summary.partial;
  if (!p) return [];
  const out = ['', `> **Partial run**: ${cell(p.reason)}. The figures cover only what ran.`];
  const named = p.cases.slice(0, FAILURES_SHOWN);
  if (named.length) {
    out.push(
      '>',
      `> Not run: ${named.map((c) => `${code(c.id)} #${c.trial} (${cell(`${c.commission} · ${c.delivery} · ${c.split}`)}, ${c.why})`).join(', ')}${p.notRun > named.length ? `, … ${p.notRun - named.length} more` : ''}`,
    );
  }
  return out;
}

function familySection(summary: Summary): string[] {
  if (!summary.families.length) return [];
  return [
    '',
    '## Family scores',
    '',
    'The plain (macro) mean of the commission Results of each family, per delivery and split (DESIGN §5), with the median over commissions and a stratified bootstrap 95 % CI.',
    '',
    row(['Family', 'Delivery', 'Split', 'Commissions', 'Mean', 'Median', '95 % CI']),
    '|---|---|---|--:|--:|--:|--:|',
    ...summary.families.map((f) =>
      row([f.family, f.delivery, f.split, String(f.commissions.length), fmt(f.mean), fmt(f.median), fmtCI(f.ci95)]),
    ),
  ];
}

/** One bullet per delivery (not per split) for what was found in its tree, and the notes that qualify its figures. */
function deliveryNotes(commissions: CommissionSummary[]): string[] {
  const out: string[] = [];
  for (const c of perDelivery(commissions)) {
    const who = `**${cell(c.id)} / ${cell(deliveryLabel(c))}**`;
    const f = c.failureModes;
    if (f.hardCodedDevStrings.length) {
      out.push(
        '',
        `- ${who}: dev-case strings in the delivery's source: ${f.hardCodedDevStrings.map(code).join(', ')}`,
      );
    }
    if (f.heldoutLeak?.length) {
      out.push(
        '',
        `- ${who}: held-out case text in the delivery (contamination): ${f.heldoutLeak.map(code).join(', ')}`,
      );
    }
    if (c.substitutedImages?.length) {
      out.push(
        '',
        `- ${who}: images substituted (figures are not those of the original environment): ${substitutions(c)}`,
      );
    }
    if (c.semantics) out.push('', `- ${who}: τ² tool semantics ${code(c.semantics)}`);
    if (c.flaky?.length)
      out.push(
        '',
        `- ${who}: flaky (verdict changed across ${c.noise?.rounds} identical runs): ${c.flaky.map(code).join(', ')}`,
      );
  }
  return out;
}

/** Each substitution with what it ran for and on how many executions, from the rows; the entry's list otherwise. */
function substitutions(c: CommissionSummary): string {
  const counts = new Map<string, number>();
  for (const x of c.cases)
    for (const s of x.substitutedImages ?? []) {
      const k = `${code(s.from)} → ${code(s.to)} (${s.for})`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  if (counts.size === 0) return (c.substitutedImages ?? []).map((i) => `${code(i.from)} → ${code(i.to)}`).join(', ');
  return [...counts].map(([k, n]) => `${k} on ${n} of ${c.cases.length} executions`).join('; ');
}

/** Every column the report's tables show, with its caption: a caption for every abbreviation. */
function legend(): string[] {
  const seen = new Set<string>();
  const out = ['', '## Legend', ''];
  for (const view of ['markdown', 'markdownGapClosure', 'markdownFailureModes'] as const) {
    for (const col of columnsOf(view)) {
      if (seen.has(col.header)) continue;
      seen.add(col.header);
      out.push(`- **${cell(col.header)}**: ${cell(col.caption)}`);
    }
  }
  return out;
}

/**
 * `report.md`: the run, the gate, the partial note, the per-entry table, family scores, optimization, failure modes
 * (shares, explained) with one note per delivery, the first failing cases per entry, and a legend of every column.
 */
export function renderMarkdown(summary: Summary): string {
  const { run, commissions } = summary;
  const out: string[] = [
    `# heldout report — ${cell(run.id)}`,
    '',
    `Started ${cell(run.startedAt)} · sandbox ${cell(run.sandbox)} · heldout ${cell(run.version)}`,
    ...gateSection(summary),
    ...partialSection(summary),
    '',
    '## Results',
    '',
    ...table('markdown', commissions),
  ];
  if (commissions.length === 0) out.push('', '_No commissions ran._');
  out.push(...familySection(summary));

  const opt = commissions.filter((c) => c.optimization);
  if (opt.length) out.push('', '## Gap closure', '', ...table('markdownGapClosure', opt));

  out.push(
    '',
    '## Failure modes',
    '',
    ...table('markdownFailureModes', commissions),
    '',
    'Each execution is graded (it passed every gate), failed a gate (error-exit, timeout, or an **other gate**: oom, a missing or invalid artifact, a rejected patch, a constraint violation), was unscored (a judge could not score it) or was lost to the infrastructure. **Ceiling hit**: a ceiling of the rubric was below what the execution earned in its scope; **set**: the Result equals a ceiling that lowered it.',
    ...deliveryNotes(commissions),
  );

  for (const c of commissions) {
    const failing = c.cases.filter((x) => !x.passed);
    if (!failing.length) continue;
    out.push(
      '',
      `### ${cell(c.id)} · ${cell(deliveryLabel(c))} · ${c.split}: ${failing.length} of ${c.cases.length} executions did not pass`,
      '',
    );
    for (const x of failing.slice(0, FAILURES_SHOWN)) {
      out.push(`- ${code(x.id)} #${x.trial}: ${cell(caseFailureMessage(x, c.passRule.minResult) ?? '')}`);
    }
    if (failing.length > FAILURES_SHOWN) out.push(`- … ${failing.length - FAILURES_SHOWN} more in index.html`);
  }
  out.push(...legend());
  return out.join('\n') + '\n';
}
