import { macroMean } from '../metrics/index.js';
import { columnsOf } from './columns.js';
import { deliveryKeys, deliveryLabel, fmt } from './format.js';
import { CLIENT_JS } from './html-client.js';
import { DATA_DIR, type HtmlDataManifest, htmlDataInMemory, STATUS } from './html-data.js';
import { escapeHtml, familyTable, findings, gateBox, legend, partialBanner, SECTIONS_CSS } from './html-sections.js';
import type { CommissionSummary, Summary } from './schema.js';

/**
 * JSON inside <script> ends at the first `</script`; escaping every `<` (and the two line separators old parsers
 * choke on) keeps any case output inert while JSON.parse still reads the same string.
 */
function scriptJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json.indexOf('<') < 0 && json.indexOf('\u2028') < 0 && json.indexOf('\u2029') < 0) return json;
  return json.replace(/[<\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function groupByDelivery(
  commissions: CommissionSummary[],
  key: (c: CommissionSummary) => string,
): Map<string, CommissionSummary[]> {
  const out = new Map<string, CommissionSummary[]>();
  for (const c of commissions) {
    const k = key(c);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

/**
 * The charts' name of an entry's delivery: its label, unless deliveries of several digests share that label; then
 * the commission is named too (two "reference" deliveries of two commissions), and the digest only when one
 * commission holds two deliveries of the same label.
 */
export function chartKeys(commissions: CommissionSummary[]): (c: CommissionSummary) => string {
  const digests = new Map<string, Set<string>>();
  const add = (k: string, d: string) => digests.set(k, (digests.get(k) ?? new Set<string>()).add(d));
  for (const c of commissions) {
    add(deliveryLabel(c), c.delivery.digest);
    add(`${c.id}\u0000${deliveryLabel(c)}`, c.delivery.digest);
  }
  return (c) => {
    const label = deliveryLabel(c);
    if (digests.get(label)!.size === 1) return label;
    const named = `${c.id} · ${label}`;
    if (digests.get(`${c.id}\u0000${label}`)!.size === 1) return named;
    return `${named} (${c.delivery.digest.replace(/^sha256:/, '').slice(0, 8)})`;
  };
}

const BINS = 10;

/** Result distribution per delivery: a histogram of scored held-out executions (dev when no held-out split ran). */
function distributionChart(groups: Map<string, CommissionSummary[]>): string {
  const panels: string[] = [];
  for (const [key, entries] of groups) {
    const held = entries.filter((c) => c.split === 'heldout');
    const use = held.length ? held : entries;
    const counts = new Array<number>(BINS).fill(0);
    for (const c of use) {
      for (const x of c.cases) {
        if (x.result === null || (x.status !== 'graded' && x.status !== 'gate-failed')) continue;
        counts[Math.min(BINS - 1, Math.max(0, Math.floor(x.result / (100 / BINS))))]++;
      }
    }
    const top = Math.max(1, ...counts);
    const W = 260;
    const H = 110;
    const bw = (W - 20) / BINS;
    const bars = counts
      .map((n, i) => {
        const h = ((H - 30) * n) / top;
        const lo = i * (100 / BINS);
        return `<rect class="bin" data-bin="${i}" data-count="${n}" x="${(10 + i * bw).toFixed(1)}" y="${(H - 20 - h).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${lo}–${lo + 100 / BINS}: ${n}</title></rect>`;
      })
      .join('');
    const split = held.length ? 'held-out' : 'dev';
    panels.push(
      `<figure class="dist" data-delivery="${escapeHtml(key)}"><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(`Result distribution, ${key}`)}">${bars}<line x1="10" y1="${H - 20}" x2="${W - 10}" y2="${H - 20}" class="axis"/><text x="10" y="${H - 6}">0</text><text x="${W - 10}" y="${H - 6}" text-anchor="end">100</text></svg><figcaption>${escapeHtml(key)} · ${split}</figcaption></figure>`,
    );
  }
  return `<div id="chart-distribution" class="charts">${panels.join('') || '<p>No scored cases.</p>'}</div>`;
}

/** Dev vs held-out per delivery: the macro mean of commission Results per split, as paired bars (the gap, seen). */
function devHeldoutChart(groups: Map<string, CommissionSummary[]>): string {
  // Each group is as wide as its name (≈ 6 px a character at 10 px), so no name is cut short.
  const step = Math.max(90, 12 + 6 * Math.max(0, ...[...groups.keys()].map((k) => k.length)));
  const W = Math.max(300, 40 + groups.size * step);
  const H = 190;
  const top = 20;
  const plot = H - 40 - top;
  const parts: string[] = [];
  let i = 0;
  for (const [key, entries] of groups) {
    const x0 = 40 + i * step + (step - 90) / 2;
    const pair: [string, number | null][] = [
      [
        'dev',
        macroMean(entries.filter((c) => c.split === 'dev' && c.result.mean !== null).map((c) => [c.result.mean!])),
      ],
      [
        'heldout',
        macroMean(entries.filter((c) => c.split === 'heldout' && c.result.mean !== null).map((c) => [c.result.mean!])),
      ],
    ];
    const bars = pair
      .map(([split, v], j) => {
        if (v === null) return '';
        const h = (plot * v) / 100;
        const x = x0 + j * 32;
        return `<rect class="bar ${split}" data-split="${split}" data-value="${v}" x="${x}" y="${(top + plot - h).toFixed(1)}" width="28" height="${h.toFixed(1)}"><title>${split}: ${fmt(v)}</title></rect><text x="${x + 14}" y="${(top - 4 + plot - h).toFixed(1)}" text-anchor="middle">${fmt(v)}</text>`;
      })
      .join('');
    parts.push(
      `<g data-delivery="${escapeHtml(key)}">${bars}<text x="${x0 + 30}" y="${H - 22}" text-anchor="middle">${escapeHtml(key)}</text></g>`,
    );
    i++;
  }
  return `<figure id="chart-dev-heldout"><svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="dev vs held-out mean per delivery"><line x1="36" y1="${top + plot}" x2="${W - 4}" y2="${top + plot}" class="axis"/><text x="32" y="${top + 4 + plot}" text-anchor="end">0</text><text x="32" y="${top + 4}" text-anchor="end">100</text>${parts.join('')}<rect class="bar dev" x="${W - 130}" y="${H - 14}" width="10" height="10"/><text x="${W - 116}" y="${H - 5}">dev</text><rect class="bar heldout" x="${W - 80}" y="${H - 14}" width="10" height="10"/><text x="${W - 66}" y="${H - 5}">held-out</text></svg><figcaption>Dev vs held-out mean per delivery (macro over commissions)</figcaption></figure>`;
}

/**
 * The results table of the `html` view, grouped as the console groups them: by commission, then delivery, then
 * split (held-out first), so one commission's deliveries sit together.
 */
export function summaryTable(
  summary: Summary,
  deliveryKey: (c: CommissionSummary) => string,
  id = 'summary-table',
): string {
  const columns = columnsOf('html');
  const order = summary.commissions
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) =>
        a.c.id.localeCompare(b.c.id) ||
        deliveryKey(a.c).localeCompare(deliveryKey(b.c)) ||
        b.c.split.localeCompare(a.c.split),
    );
  const rows = order.map(({ c, i }) => {
    const cells = columns.map(
      (col) => `<td data-col="${col.id}"${col.align === 'right' ? ' class="num"' : ''}>${escapeHtml(col.cell(c))}</td>`,
    );
    const cls = `verdict-${c.verdict}${c.flags.length ? ' flagged' : ''}`;
    return `<tr data-row="${i}" class="${cls}" data-verdict="${c.verdict}" data-flags="${c.flags.join(' ')}" data-commission="${escapeHtml(c.id)}" data-delivery="${escapeHtml(deliveryLabel(c))}" data-split="${c.split}" tabindex="0">${cells.join('')}</tr>`;
  });
  const head = columns.map((col) => `<th title="${escapeHtml(col.caption)}">${escapeHtml(col.header)}</th>`).join('');
  return `<table id="${id}" class="results"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const BASE_CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2329;background:#fff}
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.15rem}h3{font-size:.95rem;margin:.8rem 0 .3rem}
.meta{color:#5b6670;margin:0 0 1rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.25rem .5rem;border-bottom:1px solid #e3e7ea;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.scroll{max-height:75vh;overflow:auto}
#summary-table tbody tr,#case-table tbody tr{cursor:pointer}#summary-table tbody tr:hover,#case-table tbody tr:hover{background:#f2f6fa}
tr.selected{background:#e4eefb!important}tr.fail td:last-child{color:#b3261e}tr.pass td:last-child{color:#1b7f3b}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}figcaption{font-size:.8rem;color:#5b6670}
svg text{font-size:10px;fill:#5b6670}.axis{stroke:#9aa4ad}.bin{fill:#4a7bd0}.bar.dev{fill:#9bbcf0}.bar.heldout{fill:#2c5aa8}
#layout{display:flex;gap:1.5rem;align-items:flex-start}#cases{flex:1;min-width:0}
#drilldown{flex:1;min-width:0;border:1px solid #d5dbe0;border-radius:6px;padding:.5rem 1rem;position:sticky;top:.5rem;max-height:95vh;overflow:auto}
#drilldown .close{float:right;border:0;background:none;font-size:1.3rem;cursor:pointer}
.dim{display:grid;grid-template-columns:10rem 1fr 9rem;gap:.5rem;align-items:center;margin:.15rem 0}
.track{position:relative;height:.7rem;background:#e8ecef;border-radius:3px}.fill{height:100%;background:#3a8d5c;border-radius:3px}
.cap{position:absolute;top:-3px;bottom:-3px;width:2px;background:#c0392b}
.evidence,.stderr{white-space:pre-wrap;word-break:break-word;font:12px/1.35 ui-monospace,monospace;background:#f6f8fa;padding:.3rem .5rem;border-radius:4px}
li.binding{color:#b3261e}.controls{display:flex;gap:.5rem;margin:.3rem 0}
`;

/** The style of every heldout page: the report's and the viewer's. */
export const PAGE_CSS = BASE_CSS + SECTIONS_CSS;

/**
 * `index.html` (DESIGN §9): the gate, the aggregate table rendered server-side, inline SVG charts, and the summary's
 * figures embedded as JSON (`script#heldout-summary`) without its cases: the inline script loads an entry's case list
 * and a case's detail from the chunks in `index.files/` (html-data.ts, `manifest`) when they are asked for. Nothing
 * outside the report directory is requested; all text is escaped.
 */
export function renderHtml(summary: Summary, manifest: HtmlDataManifest = htmlDataInMemory(summary).manifest): string {
  const key = deliveryKeys(summary.commissions);
  const groups = groupByDelivery(summary.commissions, chartKeys(summary.commissions));
  // Not-run cases are named in the page's HTML (the first 50) and in summary.json, not embedded again.
  const embedded = {
    ...summary,
    partial: summary.partial && { ...summary.partial, cases: [] },
    packing: { format: 'heldout/cases-packed@2', status: STATUS },
    chunks: manifest,
    commissions: summary.commissions.map(({ cases: _cases, ...c }) => c),
  };
  const { run } = summary;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline' 'self'; img-src data:">
<title>heldout report — ${escapeHtml(run.id)}</title><style>${PAGE_CSS}</style></head>
<body>
<h1>heldout report — ${escapeHtml(run.id)}</h1>
<p class="meta">Started ${escapeHtml(run.startedAt)} · sandbox ${escapeHtml(run.sandbox)} · heldout ${escapeHtml(run.version)} · ${summary.commissions.length} entries · ${summary.commissions.reduce((s, c) => s + c.cases.length, 0)} executions</p>
${gateBox(summary)}
${partialBanner(summary)}
<h2>Results</h2>
${summaryTable(summary, key)}
<p class="meta">Click a row for its cases, a case for its drill-down (loaded from <code>${DATA_DIR}/</code> beside this page). Rows are marked by verdict (green pass, red fail) and flags; the legend below says what every column means.</p>
${findings(summary)}
${familyTable(summary)}
<h2>Charts</h2>
<h3>Result distribution per delivery</h3>
${distributionChart(groups)}
<h3>Dev vs held-out per delivery</h3>
${devHeldoutChart(groups)}
<div id="layout">
<section id="cases" hidden><h2 id="cases-title"></h2>
<div class="controls"><select id="filter-status" aria-label="status filter"><option value="all">all</option><option value="failed">not passed</option>${STATUS.map((s) => `<option value="${s}">${s}</option>`).join('')}</select><input id="filter-text" type="search" placeholder="case id" aria-label="case id filter"></div>
<p id="cases-note" class="meta" hidden></p>
<div class="scroll"><table id="case-table"><thead><tr><th>Case</th><th class="num">Trial</th><th>Status</th><th>Gate</th><th class="num">Result</th><th>Verdict</th></tr></thead><tbody id="case-rows"></tbody></table></div>
<button id="more-cases" type="button" hidden>Show more</button>
</section>
<aside id="drilldown" hidden></aside>
</div>
${legend()}
<script type="application/json" id="heldout-summary">${scriptJson(embedded)}</script>
<script>${CLIENT_JS}</script>
</body></html>
`;
}
