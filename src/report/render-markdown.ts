import { columnsOf, type ViewName } from './columns.js';
import { caseFailureMessage, deliveryLabel } from './format.js';
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

/** How many failing cases each entry lists; the HTML report has all of them. */
const FAILURES_SHOWN = 20;

/** `report.md`: the run, the per-entry table, optimization, failure modes and the first failing cases per entry. */
export function renderMarkdown(summary: Summary): string {
  const { run, commissions } = summary;
  const out: string[] = [
    `# heldout report — ${cell(run.id)}`,
    '',
    `Started ${cell(run.startedAt)} · sandbox ${cell(run.sandbox)} · heldout ${cell(run.version)}`,
    '',
    '## Results',
    '',
    ...table('markdown', commissions),
  ];
  if (commissions.length === 0) out.push('', '_No commissions ran._');

  const opt = commissions.filter((c) => c.optimization);
  if (opt.length) out.push('', '## Gap closure', '', ...table('markdownGapClosure', opt));

  out.push('', '## Failure modes', '', ...table('markdownFailureModes', commissions));
  for (const c of commissions) {
    const f = c.failureModes;
    if (f.hardCodedDevStrings.length) {
      out.push(
        '',
        `- **${cell(c.id)} / ${cell(deliveryLabel(c))}**: dev-case strings in the delivery's source: ${f.hardCodedDevStrings.map((s) => `\`${cell(s.replace(/`/g, "'"))}\``).join(', ')}`,
      );
    }
  }

  // Once per commission × delivery: the scan is of the delivery's tree, whichever split ran.
  const leaks = new Set<string>();
  for (const c of commissions) {
    const found = c.failureModes.heldoutLeak ?? [];
    const key = `${c.id}\0${deliveryLabel(c)}`;
    if (found.length === 0 || leaks.has(key)) continue;
    leaks.add(key);
    out.push(
      '',
      `- **${cell(c.id)} / ${cell(deliveryLabel(c))}**: held-out leak — the delivery holds held-out cases' text: ${found.map((x) => `\`${cell(x.replace(/`/g, "'"))}\``).join(', ')}`,
    );
  }

  for (const c of commissions) {
    const failing = c.cases.filter((x) => !x.passed);
    if (!failing.length) continue;
    out.push(
      '',
      `### ${cell(c.id)} · ${cell(deliveryLabel(c))} · ${c.split}: ${failing.length} of ${c.cases.length} executions did not pass`,
      '',
    );
    for (const x of failing.slice(0, FAILURES_SHOWN)) {
      out.push(
        `- \`${cell(x.id).replace(/`/g, "'")}\` #${x.trial}: ${cell(caseFailureMessage(x, c.passRule.minResult) ?? '')}`,
      );
    }
    if (failing.length > FAILURES_SHOWN) out.push(`- … ${failing.length - FAILURES_SHOWN} more in index.html`);
  }
  return out.join('\n') + '\n';
}
