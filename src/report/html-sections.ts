import { columnsOf } from './columns.js';
import {
  conditionValue,
  conditionWhere,
  deliveryLabel,
  fmt,
  fmtCI,
  gateHeadline,
  perDelivery,
  thresholdsText,
} from './format.js';
import type { Summary } from './schema.js';

/** The page parts of index.html around its tables: the gate box, the partial note, findings, families, legend. */

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** How many not-run cases the page names (summary.json names up to 5,000). */
const NOT_RUN_SHOWN = 50;

/** The gate box: verdict, thresholds, and each condition with its value; what turned the run red, seen first. */
export function gateBox(summary: Summary, id = 'gate'): string {
  const { gate } = summary;
  const rows = gate.conditions
    .map(
      (c) =>
        `<tr class="${c.met ? 'met' : 'unmet'}" data-condition="${c.condition}" data-commission="${escapeHtml(c.commission ?? '')}" data-delivery="${escapeHtml(c.delivery ?? '')}"><td>${escapeHtml(conditionWhere(c))}</td><td>${c.condition}</td><td class="num">${escapeHtml(fmt(c.threshold))}</td><td class="num">${escapeHtml(conditionValue(c))}</td><td>${c.met ? 'met' : 'not met'}</td><td>${escapeHtml(c.message)}</td></tr>`,
    )
    .join('');
  const thresholds = thresholdsText(gate);
  const text =
    gate.verdict === 'none'
      ? 'No gate thresholds were set: the run is judged case by case, by each commission’s pass rule.'
      : gate.verdict === 'not-recorded'
        ? 'Read from a summary@1 document, which did not record the gate.'
        : `Thresholds: ${thresholds}`;
  return `<section id="${id}" class="gate gate-${gate.verdict}" data-verdict="${gate.verdict}" data-evaluated-on="${gate.evaluatedOn}">
<h2>Gate: <span class="gate-verdict">${escapeHtml(gateHeadline(gate))}</span></h2>
<p class="gate-thresholds">${escapeHtml(text)}</p>${gate.reason && gate.verdict !== 'none' && gate.verdict !== 'not-recorded' ? `<p class="gate-reason">${escapeHtml(gate.reason)}</p>` : ''}${rows ? `<table class="gate-conditions"><thead><tr><th>Where</th><th>Condition</th><th>Threshold</th><th>Value</th><th>Met</th><th>Finding</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
</section>`;
}

/** The partial note: how many planned executions did not run, and the first of them by name. */
export function partialBanner(summary: Summary): string {
  const p = summary.partial;
  if (!p) return '';
  const items = p.cases
    .slice(0, NOT_RUN_SHOWN)
    .map(
      (c) =>
        `<li data-case="${escapeHtml(c.id)}" data-why="${c.why}"><code>${escapeHtml(c.id)}</code> #${c.trial} · ${escapeHtml(`${c.commission} · ${c.delivery} · ${c.split}`)} · ${c.why}</li>`,
    )
    .join('');
  const rest = p.notRun - Math.min(p.notRun, NOT_RUN_SHOWN);
  return `<section id="partial" class="partial" data-not-run="${p.notRun}" data-planned="${p.planned}"><h2>Partial run</h2><p>${escapeHtml(p.reason)}. The figures cover only what ran.</p>${items ? `<ul class="not-run">${items}${rest > 0 ? `<li>… ${rest} more (summary.json names them)</li>` : ''}</ul>` : ''}</section>`;
}

/** Per delivery (not per split): the dev-case strings in its tree, held-out leaks, substituted images, semantics. */
export function findings(summary: Summary): string {
  const blocks: string[] = [];
  for (const c of perDelivery(summary.commissions)) {
    const f = c.failureModes;
    const parts: string[] = [];
    const list = (cls: string, title: string, xs: string[]) =>
      `<h4>${escapeHtml(title)}</h4><ul class="${cls}">${xs.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`;
    if (f.hardCodedDevStrings.length)
      parts.push(list('dev-strings', "Dev-case strings in the delivery's source (overfitting)", f.hardCodedDevStrings));
    if (f.heldoutLeak?.length)
      parts.push(list('heldout-leak', 'Held-out case text in the delivery (contamination)', f.heldoutLeak));
    if (c.substitutedImages?.length)
      parts.push(
        list(
          'substituted-images',
          'Images substituted: the figures are not those of the original environment',
          c.substitutedImages.map((i) => `${i.from} → ${i.to}`),
        ),
      );
    if (c.semantics) parts.push(`<p class="semantics">τ² tool semantics: <code>${escapeHtml(c.semantics)}</code></p>`);
    if (!parts.length) continue;
    blocks.push(
      `<div class="finding" data-commission="${escapeHtml(c.id)}" data-delivery="${escapeHtml(deliveryLabel(c))}"><h3>${escapeHtml(`${c.id} · ${deliveryLabel(c)}`)}</h3>${parts.join('')}</div>`,
    );
  }
  return blocks.length ? `<section id="findings"><h2>Findings</h2>${blocks.join('')}</section>` : '';
}

/** DESIGN §5's family scores: the macro mean of commission Results per family, delivery and split. */
export function familyTable(summary: Summary): string {
  if (!summary.families.length) return '';
  const rows = summary.families
    .map(
      (f) =>
        `<tr data-family="${f.family}" data-delivery="${escapeHtml(f.delivery)}" data-split="${f.split}"><td>${f.family}</td><td>${escapeHtml(f.delivery)}</td><td>${f.split}</td><td class="num">${f.commissions.length}</td><td class="num">${fmt(f.mean)}</td><td class="num">${fmt(f.median)}</td><td class="num">${fmtCI(f.ci95)}</td></tr>`,
    )
    .join('');
  return `<h2>Family scores</h2><table id="family-table"><thead><tr><th>Family</th><th>Delivery</th><th>Split</th><th title="commissions in the family that ran">Commissions</th><th title="plain (macro) mean of the commission Results">Mean</th><th>Median</th><th title="stratified percentile bootstrap over each commission's cases">95 % CI</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Terms the drill-down and the charts use beside the columns. */
const TERMS: [string, string][] = [
  [
    'graded / gate-failed / unscored / infra-error',
    "a case's status: passed every gate; failed one (Result 0); a judge could not score it; lost to the infrastructure",
  ],
  [
    'cap',
    "the most a dimension may score once unmet outcomes and safety failures apply (the red mark on a dimension's bar)",
  ],
  ['ceiling (binding)', 'a bound on a dimension or on the total; binding when it lowered the score'],
  [
    'μ_new ∧ μ_reg',
    "editing: the commissioned behaviour and the preservation of the product's own test suite; both must hold",
  ],
  ['pass rule', "a case passes when its gates pass and its Result reaches the commission's pass score"],
];

/** A caption for every abbreviation of the page: the results columns' captions and the drill-down's terms. */
export function legend(): string {
  const cols = columnsOf('html').map(
    (c) => `<dt data-col="${c.id}">${escapeHtml(c.header)}</dt><dd>${escapeHtml(c.caption)}</dd>`,
  );
  const terms = TERMS.map(([t, d]) => `<dt>${escapeHtml(t)}</dt><dd>${escapeHtml(d)}</dd>`);
  return `<section id="legend-section"><h2>Legend</h2><dl id="legend">${[...cols, ...terms].join('')}</dl></section>`;
}

export const SECTIONS_CSS = `
.gate{border:2px solid #9aa4ad;border-radius:6px;padding:.3rem 1rem;margin:.5rem 0 1rem}
.gate-pass{border-color:#1b7f3b;background:#eef8f0}.gate-fail{border-color:#b3261e;background:#fdecea}
.gate-not-evaluated{border-color:#b26a00;background:#fff6e0}.gate h2{margin:.3rem 0}
table.gate-conditions tr.unmet td{color:#b3261e;font-weight:600}table.gate-conditions tr.met td{color:#1b7f3b}
.partial{border:2px dashed #b26a00;border-radius:6px;padding:.3rem 1rem;background:#fffaf0;margin:.5rem 0 1rem}
table.results tr.verdict-pass td:first-child{box-shadow:inset 4px 0 #1b7f3b}
table.results tr.verdict-fail td:first-child{box-shadow:inset 4px 0 #b3261e}
table.results tr.verdict-unscored td:first-child,table.results tr.verdict-baseline td:first-child{box-shadow:inset 4px 0 #9aa4ad}
table.results tr.verdict-fail{background:#fdf1f0}table.results tr.flagged td[data-col="flags"]{color:#8a5300;font-weight:600}
td[data-col="verdict"]{font-weight:600}tr.verdict-pass td[data-col="verdict"]{color:#1b7f3b}tr.verdict-fail td[data-col="verdict"]{color:#b3261e}
.finding{border-left:4px solid #b26a00;padding:.1rem .8rem;margin:.5rem 0}.finding h4{margin:.3rem 0;font-size:.85rem}
.finding ul{display:flex;flex-wrap:wrap;gap:.3rem .6rem;list-style:none;padding:0;margin:.2rem 0}
.finding code{background:#fff1d6;padding:0 .25rem;border-radius:3px}
#legend{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;font-size:.85rem}#legend dt{font-weight:600}#legend dd{margin:0}
.item{border-left:4px solid #9aa4ad;padding-left:.5rem;margin:.4rem 0}.item.pass{border-color:#1b7f3b}.item.fail{border-color:#b3261e}
.item.partial{border-color:#b26a00}.item.fail .evidence{background:#fdecea}.item.pass .evidence{background:#eef8f0}
.item .verdict{font-size:.75rem;text-transform:uppercase;margin-left:.4rem}.item.pass .verdict{color:#1b7f3b}.item.fail .verdict{color:#b3261e}
li.satisfied{color:#1b7f3b}li.unmet{color:#b3261e}p.dd-gate.pass{color:#1b7f3b}p.dd-gate.fail{color:#b3261e;font-weight:600}
`;
