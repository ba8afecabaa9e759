import { columnsOf } from './columns.js';
import type { Comparison, EntryComparison } from './compare.js';
import { deliveryLabel, fmt, fmtSigned, gateHeadline } from './format.js';
import { escapeHtml, gateBox } from './html-sections.js';
import { pairFigures, pairVerdict } from './render-compare.js';
import { PAGE_CSS } from './render-html.js';
import type { CommissionSummary, Summary } from './schema.js';

/** The pages `heldout view` serves beside each run's own report: the list of runs and a comparison of two. */

/** A run the viewer found: its name (the directory relative to the viewer's root), and its summary or why not. */
export interface RunListing {
  name: string;
  summary: Summary | null;
  error: string | null;
}

const VIEW_CSS = `
.runs td .entry{display:block;white-space:nowrap}.entry.verdict-pass{color:#1b7f3b}.entry.verdict-fail{color:#b3261e}
.gate-cell{font-weight:600}.gate-cell.gate-pass{color:#1b7f3b}.gate-cell.gate-fail{color:#b3261e}.gate-cell.gate-not-evaluated{color:#b26a00}
.side{display:flex;gap:1.5rem;align-items:flex-start}.side>section{flex:1;min-width:0;overflow-x:auto}
#side-by-side{font-size:.85rem}#side-by-side .side-a,#side-by-side .side-b,#side-by-side .side-a-first,#side-by-side .side-b-first{border-left:2px solid #9aa4ad}
#side-by-side td.absent{color:#9aa4ad;font-style:italic}
.pair{border:1px solid #d5dbe0;border-radius:6px;padding:.3rem 1rem;margin:1rem 0}.pair.worse{border-color:#b3261e}.pair.better{border-color:#1b7f3b}
ul.flipped li[data-flip="pass→fail"]{color:#b3261e}ul.flipped li[data-flip="fail→pass"]{color:#1b7f3b}
td.diff-neg{color:#b3261e}td.diff-pos{color:#1b7f3b}.error{color:#b3261e}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'">
<title>${escapeHtml(title)}</title><style>${PAGE_CSS}${VIEW_CSS}</style></head>
<body>
${body}
</body></html>
`;
}

const runHref = (name: string) => `/run/${encodeURIComponent(name)}/`;

/** The viewer's home: every run with its gate and held-out figures, newest first, and a form to compare two. */
export function renderRunsPage(root: string, runs: RunListing[]): string {
  const rows = runs.map((r, i) => {
    const radio = (side: 'a' | 'b') =>
      `<input type="radio" name="${side}" value="${escapeHtml(r.name)}" aria-label="${side.toUpperCase()}: ${escapeHtml(r.name)}"${(side === 'a' && i === 1) || (side === 'b' && i === 0) ? ' checked' : ''}>`;
    if (!r.summary) {
      return `<tr data-run="${escapeHtml(r.name)}" class="broken"><td></td><td></td><td>${escapeHtml(r.name)}</td><td colspan="5" class="error">${escapeHtml(r.error ?? 'unreadable')}</td></tr>`;
    }
    const s = r.summary;
    const entries = s.commissions
      .filter((c) => c.split === 'heldout')
      .map(
        (c) =>
          `<span class="entry verdict-${c.verdict}" data-commission="${escapeHtml(c.id)}" data-delivery="${escapeHtml(deliveryLabel(c))}">${escapeHtml(`${c.id} · ${deliveryLabel(c)}: ${fmt(c.result.mean)} ${c.verdict}`)}${c.flags.length ? ` ⚑ ${escapeHtml(c.flags.join(', '))}` : ''}</span>`,
      )
      .join('');
    const executions = s.commissions.reduce((n, c) => n + c.cases.length, 0);
    return `<tr data-run="${escapeHtml(r.name)}" data-gate="${s.gate.verdict}"><td>${radio('a')}</td><td>${radio('b')}</td><td><a href="${runHref(r.name)}">${escapeHtml(s.run.id)}</a><br><small>${escapeHtml(r.name)}</small></td><td>${escapeHtml(s.run.startedAt)}</td><td class="gate-cell gate-${s.gate.verdict}">${escapeHtml(gateHeadline(s.gate))}</td><td>${s.partial ? `partial: ${s.partial.notRun} not run` : ''}</td><td class="num">${executions}</td><td>${entries}</td></tr>`;
  });
  const body = `<h1>heldout runs — ${escapeHtml(root)}</h1>
<p class="meta">${runs.length} runs, newest first. Open a run for its report; pick A and B to compare them case by case (the same run twice compares two of its deliveries).</p>
<form method="get" action="/compare">
<table id="runs" class="runs"><thead><tr><th>A</th><th>B</th><th>Run</th><th>Started</th><th title="the CI gate's verdict as the run recorded it">Gate</th><th>Coverage</th><th title="case × trial executions">Executions</th><th title="each held-out entry: mean Result, verdict and flags">Held-out entries</th></tr></thead><tbody>${rows.join('')}</tbody></table>
<p><label>A delivery <input name="da" placeholder="(every one)"></label> <label>B delivery <input name="db" placeholder="(same label)"></label> <button type="submit">Compare A → B</button></p>
</form>`;
  return page(`heldout runs — ${root}`, body);
}

function pairSection(p: EntryComparison): string {
  const flips = p.flipped
    .map(
      (c) =>
        `<li data-case="${escapeHtml(c.id)}" data-flip="${c.flipped}">${escapeHtml(`${c.id}: ${c.flipped} (${fmt(c.a)} → ${fmt(c.b)})`)}</li>`,
    )
    .join('');
  const rows = p.cases
    .map(
      (c) =>
        `<tr data-case="${escapeHtml(c.id)}"${c.flipped ? ` data-flip="${c.flipped}"` : ''}><td>${escapeHtml(c.id)}</td><td class="num">${fmt(c.a)}</td><td class="num">${fmt(c.b)}</td><td class="num ${c.diff < 0 ? 'diff-neg' : c.diff > 0 ? 'diff-pos' : ''}">${fmtSigned(c.diff)}</td><td>${c.aPass} → ${c.bPass}</td></tr>`,
    )
    .join('');
  return `<section class="pair ${p.paired.verdict}" data-commission="${escapeHtml(p.commission)}" data-split="${p.split}" data-verdict="${p.paired.verdict}">
<h3>${escapeHtml(`${p.commission} · ${p.split}: ${p.a.delivery} (A) → ${p.b.delivery} (B)`)}</h3>
<p class="pair-figures">${escapeHtml(pairFigures(p))}: <strong>${escapeHtml(pairVerdict(p))}</strong></p>
<h4>Flipped pass↔fail (${p.flipped.length})</h4>${flips ? `<ul class="flipped">${flips}</ul>` : '<p>none</p>'}
<table class="case-diff"><thead><tr><th>Case</th><th title="mean Result in A over scored trials">A</th><th title="mean Result in B">B</th><th title="B − A">Δ</th><th title="pass: every scored trial passed; fail: none did; mixed: some">A → B</th></tr></thead><tbody>${rows}</tbody></table>
${p.onlyA.length ? `<p>Graded in A only: ${escapeHtml(p.onlyA.join(', '))}</p>` : ''}${p.onlyB.length ? `<p>Graded in B only: ${escapeHtml(p.onlyB.join(', '))}</p>` : ''}
</section>`;
}

/**
 * The figures a comparison puts side by side, a pane each: the results table's columns that tell two entries apart
 * at a glance (the whole table is twice as wide as half a 1,400 px window). The full table is each run's own page.
 */
const PANE_COLUMNS = new Set(['delivery', 'verdict', 'mean', 'passk', 'gap', 'S', 'flags']);

/**
 * One table whose rows are the compared entries (a pair, or an entry without a partner) with A's figures beside
 * B's, so the two sides' rows line up and only the deliveries chosen are shown.
 */
function sideBySide(cmp: Comparison, a: Summary, b: Summary): string {
  const cols = columnsOf('html').filter((c) => PANE_COLUMNS.has(c.id));
  const find = (s: Summary, e: { commission: string; split: string; digest: string; delivery: string }) =>
    s.commissions.find(
      (c) =>
        c.id === e.commission &&
        c.split === e.split &&
        c.delivery.digest === e.digest &&
        deliveryLabel(c) === e.delivery,
    ) ?? null;
  const cells = (side: 'a' | 'b', c: CommissionSummary | null) =>
    c
      ? cols
          .map(
            (col, i) =>
              `<td data-side="${side}" data-col="${col.id}" class="${[col.align === 'right' ? 'num' : '', i === 0 ? `side-${side}-first` : ''].join(' ').trim()}">${escapeHtml(col.cell(c))}</td>`,
          )
          .join('')
      : `<td data-side="${side}" colspan="${cols.length}" class="absent side-${side}-first">no partner</td>`;
  const rows = [
    ...cmp.pairs.map((p) => ({ key: p.commission, split: p.split, ea: find(a, p.a), eb: find(b, p.b) })),
    ...cmp.unmatched.map((u) => ({
      key: u.entry.commission,
      split: u.entry.split,
      ea: u.side === 'a' ? find(a, u.entry) : null,
      eb: u.side === 'b' ? find(b, u.entry) : null,
    })),
  ].map(
    (r) =>
      `<tr data-pair="${escapeHtml(`${r.key} · ${r.split}`)}" data-commission="${escapeHtml(r.key)}" data-split="${r.split}"><td>${escapeHtml(r.key)}</td><td>${r.split}</td>${cells('a', r.ea)}${cells('b', r.eb)}</tr>`,
  );
  const head = (side: 'A' | 'B') =>
    cols
      .map(
        (c, i) =>
          `<th data-side="${side.toLowerCase()}" data-col="${c.id}" title="${escapeHtml(c.caption)}"${i === 0 ? ` class="side-${side.toLowerCase()}"` : ''}>${escapeHtml(`${side} ${c.header}`)}</th>`,
      )
      .join('');
  return `<table id="side-by-side" class="results"><thead><tr><th>Commission</th><th>Split</th>${head('A')}${head('B')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Two runs side by side (their gates, then one table of the compared entries) and each pair, case by case. */
export function renderComparePage(
  a: { name: string; summary: Summary },
  b: { name: string; summary: Summary },
  cmp: Comparison,
): string {
  const side = (label: string, r: { name: string; summary: Summary }) =>
    `<section class="run-side" data-side="${label}" data-run="${escapeHtml(r.name)}"><h2>${label}: <a href="${runHref(r.name)}">${escapeHtml(r.summary.run.id)}</a></h2><p class="meta">${escapeHtml(r.name)} · started ${escapeHtml(r.summary.run.startedAt)}</p>${gateBox(r.summary, `gate-${label.toLowerCase()}`)}</section>`;
  const unmatched = cmp.unmatched.length
    ? `<h2>No partner</h2><ul class="unmatched">${cmp.unmatched.map((u) => `<li>${u.side.toUpperCase()}: ${escapeHtml(`${u.entry.commission} · ${u.entry.delivery} · ${u.entry.split}`)}</li>`).join('')}</ul>`
    : '';
  const body = `<p><a href="/">← all runs</a></p>
<h1>Compare ${escapeHtml(a.summary.run.id)} (A) → ${escapeHtml(b.summary.run.id)} (B)</h1>
<p class="meta">Per case: the mean Result over scored trials on each side; Δ = B − A; W/L/T counts cases where B is above / below / equal to A; the CI is a paired bootstrap of the mean Δ over cases; the sign test is two-sided, ties dropped. Significantly worse or better when the CI excludes 0.</p>
<div class="side">${side('A', a)}${side('B', b)}</div>
<h2>Side by side</h2>
${sideBySide(cmp, a.summary, b.summary)}
<h2>Case by case</h2>
${cmp.pairs.map(pairSection).join('\n') || '<p>No entries pair up: name the deliveries to compare (A delivery, B delivery).</p>'}
${unmatched}`;
  return page(`heldout compare — ${a.summary.run.id} → ${b.summary.run.id}`, body);
}

/** A plain page for errors (unknown run, unreadable summary). */
export function renderMessagePage(title: string, message: string): string {
  return page(
    title,
    `<p><a href="/">← all runs</a></p><h1>${escapeHtml(title)}</h1><p class="error">${escapeHtml(message)}</p>`,
  );
}
