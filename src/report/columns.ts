import { formatUsd } from './cost.js';
import { DASH, deliveryLabel, failureSummary, fmt, fmtCI, fmtP, fmtSigned, gateFailures, maxK } from './format.js';
import type { CommissionSummary } from './schema.js';

/**
 * The tables that show summary entries, one row per commission × delivery × split. Keys are the view names. `lead`
 * moves one column to the front of a view whose rows are ordered by it.
 */
export const VIEWS = {
  /** The console table the reporter prints. */
  console: {},
  /** report.md: Results, Gap closure (optimization entries only) and Failure modes. */
  markdown: {},
  markdownGapClosure: {},
  markdownFailureModes: {},
  /** index.html's results table, grouped by commission then delivery as the console is. */
  html: {},
  /** junit.xml: a `<property>` per column on each testsuite, carrying the raw value. */
  junit: {},
} satisfies Record<string, { lead?: string }>;

export type ViewName = keyof typeof VIEWS;

/** One report column: how to get its value from a summary entry, how to show it, and the views that show it. */
export interface Column<V = unknown> {
  /** The header wherever a view does not name its own. */
  header: string;
  align: 'left' | 'right';
  /** The raw value; JUnit properties carry it unformatted (`''` for null), at full precision. */
  value(c: CommissionSummary): V;
  /** The cell text of the value in the console, Markdown and HTML views. */
  format(v: V): string;
  /** The views that show this column: `true` under `header`, or the header there. */
  views: Partial<Record<ViewName, true | string>>;
  /** What the column means, in a sentence: the legend under each table and the headers' tooltips. */
  caption: string;
}

/** Infers a column's value type from its `value`, so `format` is checked against it. */
function column<V>(c: Column<V>): Column {
  return c;
}

const text = (s: string) => s;
/** A share in [0, 1] as a whole percent. */
const pct = (x: number | null) => (x === null ? DASH : `${Math.round(100 * x)} %`);
/** The optimization block, or undefined where the entry has none (every formatter shows a dash for it). */
const opt = (c: CommissionSummary) => c.optimization ?? undefined;
/** The views of the per-entry Results table (console, report.md, index.html). */
const RESULTS = { console: true, markdown: true, html: true } as const;
/** The columns that name an entry, shown first in every table, lowercase in the console. */
const everyTable = (consoleHeader: string): Column['views'] => ({
  console: consoleHeader,
  markdown: true,
  markdownGapClosure: true,
  markdownFailureModes: true,
  html: true,
});

/** A failure-mode share of report.md's Failure modes table (DESIGN §5). */
function shareColumn(key: keyof CommissionSummary['failureModes']['shares'], header: string, what: string): Column {
  return column({
    header,
    align: 'right',
    value: (c) => c.failureModes.shares[key] as number | null,
    format: pct,
    caption: `share of the executions that ${what}`,
    views: { markdownFailureModes: true },
  });
}

/**
 * Every report column, in the order every view shows them (a view's `lead` aside). The key is the column id, also
 * the `data-col` of its HTML cells. Renderers map over this list through `columnsOf`; none lists columns itself.
 */
export const COLUMNS = {
  commission: column({
    header: 'Commission',
    align: 'left',
    value: (c) => c.id,
    format: text,
    caption: 'the commission (task package) the row measured',
    views: everyTable('commission'),
  }),
  delivery: column({
    header: 'Delivery',
    align: 'left',
    value: deliveryLabel,
    format: text,
    caption: "the delivery under test, by label (a0: an optimization commission's starter)",
    views: everyTable('delivery'),
  }),
  'delivery-path': column({
    header: 'delivery.path',
    align: 'left',
    value: (c) => c.delivery.path,
    format: text,
    caption: "the delivery's directory",
    views: { junit: true },
  }),
  'delivery-digest': column({
    header: 'delivery.digest',
    align: 'left',
    value: (c) => c.delivery.digest,
    format: text,
    caption: "sha256 of the delivery's tree (DESIGN §6); the freeze vouches for it",
    views: { junit: true },
  }),
  split: column({
    header: 'Split',
    align: 'left',
    value: (c) => c.split,
    format: text,
    caption: 'heldout: evaluator-owned cases the builder never saw (the verdict); dev: the public development cases',
    views: everyTable('split'),
  }),
  verdict: column({
    header: 'Verdict',
    align: 'left',
    value: (c) => c.verdict,
    format: text,
    caption:
      "pass / fail: by the CI gate's conditions where the gate judged the row, else by its mean against the commission's pass score; baseline: a0, outside the gate",
    views: { console: 'verdict', markdown: true, html: true, junit: 'verdict' },
  }),
  n: column({
    header: 'n',
    align: 'right',
    value: (c) => c.result.n,
    format: String,
    caption: 'cases with at least one scored trial (infra errors and unscored cases are counted apart, never scored)',
    views: RESULTS,
  }),
  mean: column({
    header: 'Result',
    align: 'right',
    value: (c) => c.result.mean,
    format: (m) => fmt(m),
    caption: "mean over cases of each case's Result (0–100), over its scored trials",
    views: { ...RESULTS, junit: 'result.mean' },
  }),
  ci95: column({
    header: '95 % CI',
    align: 'right',
    value: (c) => c.result.ci95,
    format: fmtCI,
    caption: '95 % confidence interval of the Result: a seeded percentile bootstrap over cases',
    views: { ...RESULTS, console: '95% CI' },
  }),
  median: column({
    header: 'Median',
    align: 'right',
    value: (c) => c.result.median,
    format: (m) => fmt(m),
    caption: "median of the cases' Results",
    views: { markdown: true },
  }),
  pass1: column({
    header: 'pass^1',
    align: 'right',
    value: (c) => c.passHatK['1'] ?? null,
    format: (p) => fmt(p, 2),
    caption: "pass^1: the share of trials that met the pass rule (gates pass and Result ≥ the commission's pass score)",
    views: { ...RESULTS, junit: 'passHatK.1' },
  }),
  /**
   * pass^k at the largest k every case reached (a dash when that is 1: pass^1 says it), and beside it the run-to-run
   * noise of `--repeat` (the range of the rounds' means), so a difference smaller than the noise is not read as one.
   */
  passk: column({
    header: 'pass^k',
    align: 'right',
    value: (c) => {
      const k = maxK(c);
      const pk = k !== null && k > 1 ? { k, p: c.passHatK[k] } : null;
      return pk || c.noise ? { pk, noise: c.noise?.range ?? null } : null;
    },
    format: (x) => {
      if (!x) return DASH;
      const pk = x.pk ? `^${x.pk.k} ${fmt(x.pk.p, 2)}` : DASH;
      return x.noise === null ? pk : `${pk} (noise ±${fmt(x.noise / 2)})`;
    },
    caption:
      "pass^k: the chance that k trials of a case all pass, averaged over cases (τ-bench), at the most trials every case had; noise (--repeat): half the range of the entry's mean Result across identical runs",
    views: RESULTS,
  }),
  gap: column({
    header: 'Gap',
    align: 'right',
    value: (c) => c.gap,
    format: fmtSigned,
    caption:
      'fidelity gap: dev mean − held-out mean of the same digest; large and positive means the delivery fits the visible cases (overfitting)',
    views: { ...RESULTS, console: 'gap' },
  }),
  j0: column({
    header: 'J0',
    align: 'right',
    value: (c) => opt(c)?.j0,
    format: fmt,
    caption: "J0: the starter's (a0's) mean on the same instances",
    views: { markdownGapClosure: true },
  }),
  j1: column({
    header: 'J1',
    align: 'right',
    value: (c) => opt(c)?.j1,
    format: fmt,
    caption: "J1: the candidate's mean on the same instances",
    views: { markdownGapClosure: true },
  }),
  delta: column({
    header: 'Δ',
    align: 'right',
    value: (c) => opt(c)?.delta,
    format: fmtSigned,
    caption: 'Δ: J1 − J0',
    views: { markdownGapClosure: true },
  }),
  S: column({
    header: 'S',
    align: 'right',
    value: (c) => opt(c)?.S,
    format: fmt,
    caption:
      'S: gap closure, 100·min(1, (J1 − J0)/(100 − J0)): how much of the way from a0 to 100 the candidate closed',
    views: { ...RESULTS, markdownGapClosure: true },
  }),
  /** Wins/losses/ties against the starter with the sign test's p, in one cell. */
  wlt: column({
    header: 'W/L/T',
    align: 'right',
    value: opt,
    format: (o) => (o ? `${o.wins}/${o.losses}/${o.ties} p=${fmtP(o.signTestP)}` : DASH),
    caption: "W/L/T: instances where the candidate beat / lost to / tied the starter, with the two-sided sign test's p",
    views: { html: true },
  }),
  'wins-losses-ties': column({
    header: 'W/L/T',
    align: 'right',
    value: opt,
    format: (o) => (o ? `${o.wins}/${o.losses}/${o.ties}` : DASH),
    caption: 'W/L/T: instances where the candidate beat / lost to / tied the starter',
    views: { markdownGapClosure: true },
  }),
  'sign-test-p': column({
    header: 'sign test p',
    align: 'right',
    value: (c) => opt(c)?.signTestP,
    format: (p) => (p === undefined ? DASH : fmtP(p)),
    caption: 'p of the two-sided sign test on W and L (ties dropped); below 0.05 is significant at 5 %',
    views: { markdownGapClosure: true },
  }),
  gates: column({
    header: 'Gate failures',
    align: 'right',
    value: gateFailures,
    format: String,
    caption:
      'executions that failed a gate (error-exit, timeout, oom, missing or invalid artifact, patch, constraint): Result 0',
    views: { console: 'gate fail', html: true },
  }),
  unscored: column({
    header: 'unscored',
    align: 'right',
    value: (c) => c.result.unscored,
    format: String,
    caption: 'executions a judge could not score (never counted as 0 or 100)',
    views: { console: true },
  }),
  infra: column({
    header: 'Infra errors',
    align: 'right',
    value: (c) => c.result.infraErrors,
    format: String,
    caption:
      'executions lost to the infrastructure (sandbox, engine, provider): dropped from the means and counted, never blamed on the delivery',
    views: { console: 'infra', markdownFailureModes: true },
  }),
  executions: column({
    header: 'Executions',
    align: 'right',
    value: (c) => c.failureModes.executions,
    format: String,
    caption: 'case × trial executions of the row, whatever became of them',
    views: { markdownFailureModes: true },
  }),
  'share-graded': shareColumn('graded', 'Graded %', 'passed every gate and were graded'),
  'share-error-exit': shareColumn('errorExit', 'Error-exit %', 'exited with a code the commission does not accept'),
  'share-timeout': shareColumn('timeout', 'Timeout %', 'ran past the wall-clock budget'),
  'share-other-gate': shareColumn(
    'otherGate',
    'Other gate %',
    'failed a gate other than error-exit and timeout (oom, missing or invalid artifact, patch rejected, constraint violated)',
  ),
  'failure-modes': column({
    header: 'Failure modes',
    align: 'left',
    value: failureSummary,
    format: text,
    caption:
      'graded: passed every gate; other gate: a gate failure other than error-exit and timeout; ceiling set by / hit by: the ceilings that set the Result or lowered a score, each named with its count (ceiling set by μ_reg ×8)',
    views: { markdownFailureModes: 'Summary', html: true },
  }),
  cost: column({
    header: 'Cost',
    align: 'right',
    value: (c) => c.cost?.total,
    format: (v) => (v === undefined ? DASH : formatUsd(v)),
    caption:
      'US dollars the row’s model calls cost by the pricing table (--pricing): delivery, user simulator and judge; ? when a model is not in the table, — without a table',
    views: { markdown: true, html: true, junit: 'heldout.costUsd' },
  }),
  flags: column({
    header: 'Flags',
    align: 'left',
    value: (c) => c.flags,
    format: (f) => (f.length ? f.join(', ') : DASH),
    caption:
      'why the row is marked whatever its verdict: fidelity-gap, dev-strings (dev-case strings in the delivery), heldout-leak, no-model-calls, claims-contradicted, infra-errors, unscored, partial (cases not run), substituted-images, flaky (verdict changed across --repeat runs)',
    views: { console: 'flags', markdown: true, html: true, junit: 'flags' },
  }),
} satisfies Record<string, Column>;

export type ColumnId = keyof typeof COLUMNS;

/** A column as one view shows it. */
export interface ViewColumn {
  id: ColumnId;
  header: string;
  align: Column['align'];
  caption: string;
  value(c: CommissionSummary): unknown;
  /** The formatted cell. */
  cell(c: CommissionSummary): string;
}

const cache = new Map<ViewName, readonly ViewColumn[]>();

/**
 * The columns of a view, in registry order with the view's `lead` first; built on first use, the same array after.
 * An unknown view name throws, naming the known ones.
 */
export function columnsOf(view: ViewName): readonly ViewColumn[] {
  let out = cache.get(view);
  if (!out) {
    if (!Object.hasOwn(VIEWS, view)) {
      throw new Error(`heldout: unknown report view "${view}" (known: ${Object.keys(VIEWS).join(', ')})`);
    }
    const lead: ColumnId | undefined = (VIEWS[view] as { lead?: ColumnId }).lead;
    const ids = (Object.keys(COLUMNS) as ColumnId[]).filter((id) => COLUMNS[id].views[view] !== undefined);
    if (lead !== undefined) ids.sort((a, b) => Number(b === lead) - Number(a === lead));
    out = ids.map((id) => {
      const col = COLUMNS[id];
      const named = col.views[view];
      return {
        id,
        header: typeof named === 'string' ? named : col.header,
        align: col.align,
        caption: col.caption,
        value: col.value,
        cell: (c) => col.format(col.value(c)),
      };
    });
    cache.set(view, out);
  }
  return out;
}
