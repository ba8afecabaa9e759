// The scale part's metrics (bench/scale.bench.mjs): per run, the report alone at a larger size, the growth from the
// second-largest run to the largest, and the concurrency-32 ceiling, each with the goal issue 24 sets for it.
import { metric, round } from './lib.mjs';

/** The metrics of the measured `runs` (smallest first) and `ceiling` (or null), run on `sandbox` sleeping `sleep` s. */
export function scaleMetrics(runs, ceiling, { sandbox, sleep, floor = null }) {
  const one = (name, unit, value, extra = {}) => metric({ name, unit, samples: [value], ...extra });
  const metrics = [];
  const fmtN = (n) => n.toLocaleString('en-US');
  for (const r of runs) {
    const at = `${fmtN(r.executions)} executions, concurrency ${r.concurrency}${sandbox === 'docker' ? '' : `, ${sandbox} sandbox`}`;
    const big = r === runs[runs.length - 1];
    metrics.push(
      one(`wall, ${at}`, 's', r.wallMs / 1000, {
        baseline: { name: `ideal N·k·t/${r.concurrency}`, samples: [r.idealMs / 1000] },
        ...(big ? { goal: { on: 'ratio', op: '<=', value: 1.1 } } : {}),
        digits: 1,
      }),
      one(`peak RSS of heldout (main + workers at one moment), ${at}`, 'MB', r.peakTreeMb, {
        ...(big ? { goal: { on: 'median', op: '<=', value: 1024 } } : {}),
        digits: 0,
      }),
      ...(sandbox === 'docker'
        ? []
        : [
            one(
              `peak RSS of the whole tree (with the sandbox's relays and case processes), ${at}`,
              'MB',
              r.peakWholeTreeMb,
              {
                digits: 0,
              },
            ),
          ]),
      one(`CPU time of heldout (main + workers) per execution, ${at}`, 'ms', (r.ownCpuS * 1000) / r.executions, {
        digits: 0,
      }),
      one(`peak RSS, main process, ${at}`, 'MB', r.mainPeakMb, { digits: 0 }),
      one(`peak RSS, largest Vitest worker (${r.workerPeakMb.length}), ${at}`, 'MB', Math.max(0, ...r.workerPeakMb), {
        digits: 0,
      }),
      one(`summary.json, ${at}`, 'KB', r.bytes.summary / 1024, { digits: 0 }),
      one(`index.html, ${at}`, 'KB', r.bytes.html / 1024, {
        ...(big ? { goal: { on: 'median', op: '<=', value: 2048 } } : {}),
        digits: 1,
      }),
      one(`index.files/ (case chunks), ${at}`, 'KB', r.bytes.htmlData / 1024, { digits: 0 }),
      one(`cases/ (outputs and records), ${at}`, 'KB', r.bytes.cases / 1024, { digits: 0 }),
      metric({ name: `aggregate the records, ${at}`, unit: 'ms', samples: r.report.aggregate, digits: 0 }),
      metric({ name: `write the report, ${at}`, unit: 'ms', samples: r.report.write, digits: 0 }),
      one(`containers left after the run, ${at}`, 'containers', r.containersLeft, {
        goal: { on: 'median', op: '<=', value: 0 },
        digits: 0,
      }),
    );
    if (r.page) {
      if (r.page.fcp.length)
        metrics.push(
          metric({
            name: `index.html first contentful paint, headless Chromium, ${at}`,
            unit: 'ms',
            samples: r.page.fcp,
            goal: { on: 'median', op: '<=', value: 2000 },
            digits: 0,
          }),
        );
      metrics.push(
        metric({
          name: `index.html script ready (DOMContentLoaded end), ${at}`,
          unit: 'ms',
          samples: r.page.ready,
          digits: 0,
        }),
        metric({
          name: `case list of the entry shown after the click, ${at}`,
          unit: 'ms',
          samples: r.page.list,
          digits: 0,
        }),
        metric({
          name: `a case's drill-down shown after the click (detail chunk not loaded before), ${at}`,
          unit: 'ms',
          samples: r.page.drill,
          goal: { on: 'median', op: '<=', value: 300 },
          digits: 0,
        }),
      );
    }
  }
  const last = runs[runs.length - 1];
  if (last?.reportAt) {
    const x = last.reportAt;
    const at = `${fmtN(x.executions)} executions (the ${fmtN(x.from)}-execution run's records repeated)`;
    metrics.push(
      one(`report only: summary.json, ${at}`, 'KB', x.bytes.summary / 1024, { digits: 0 }),
      one(`report only: index.html, ${at}`, 'KB', x.bytes.html / 1024, {
        goal: { on: 'median', op: '<=', value: 2048 },
        digits: 1,
      }),
      one(`report only: index.files/, ${at}`, 'KB', x.bytes.htmlData / 1024, { digits: 0 }),
      metric({ name: `report only: write the report, ${at}`, unit: 'ms', samples: x.write, digits: 0 }),
    );
    if (x.page?.fcp.length)
      metrics.push(
        metric({
          name: `report only: first contentful paint, ${at}`,
          unit: 'ms',
          samples: x.page.fcp,
          goal: { on: 'median', op: '<=', value: 2000 },
          digits: 0,
        }),
      );
    if (x.page)
      metrics.push(
        metric({
          name: `report only: case list shown after the click, ${at}`,
          unit: 'ms',
          samples: x.page.list,
          digits: 0,
        }),
        metric({
          name: `report only: a case's drill-down shown after the click, ${at}`,
          unit: 'ms',
          samples: x.page.drill,
          goal: { on: 'median', op: '<=', value: 300 },
          digits: 0,
        }),
      );
  }
  // Growth from the second-largest size to the largest: linear is ×(size ratio); the goal allows 11× for 10×.
  if (runs.length >= 2) {
    const [a, b] = runs.slice(-2);
    const g = `growth ${fmtN(a.executions)} → ${fmtN(b.executions)} executions`;
    const limit = (11 / 10) * (b.executions / a.executions);
    const grow = (what, unit, f, goal) =>
      metric({
        name: `${g}: ${what}`,
        unit,
        samples: [f(b)],
        baseline: { name: `at ${fmtN(a.executions)}`, samples: [f(a)] },
        ...(goal ? { goal: { on: 'ratio', op: '<=', value: round(limit, 2) } } : {}),
        digits: 1,
      });
    metrics.push(
      grow('wall', 's', (r) => r.wallMs / 1000, true),
      grow("heldout's own time (wall − ideal)", 's', (r) => Math.max(0, r.wallMs - r.idealMs) / 1000, false),
      grow('peak RSS of heldout', 'MB', (r) => r.peakTreeMb, true),
      grow('CPU time of heldout', 's', (r) => r.ownCpuS, false),
      grow('summary.json', 'KB', (r) => r.bytes.summary / 1024, false),
      grow('index.html', 'KB', (r) => r.bytes.html / 1024, false),
      grow('cases/', 'KB', (r) => r.bytes.cases / 1024, false),
      grow('write the report', 'ms', (r) => Math.min(...r.report.write), true),
    );
  }
  if (floor) {
    const big = runs[runs.length - 1];
    metrics.push(
      one(
        `floor: bare \`docker run --rm\` of the delivery's python sleep (no relay, no model call), ${fmtN(floor.executions)} at concurrency ${floor.concurrency}`,
        's',
        floor.wallMs / 1000,
        { baseline: { name: `ideal N·t/${floor.concurrency}`, samples: [floor.idealMs / 1000] }, digits: 1 },
      ),
    );
    if (big && sandbox === 'docker') {
      metrics.push(
        one(
          `heldout's wall/ideal over the floor's, ${fmtN(big.executions)} executions`,
          '×',
          big.wallMs / big.idealMs,
          { baseline: { name: 'floor wall/ideal', samples: [floor.wallMs / floor.idealMs] }, digits: 2 },
        ),
      );
    }
  }
  if (ceiling) {
    metrics.push(
      one(
        `throughput at concurrency 32, ${fmtN(ceiling.heldout.executions)} executions, heldout run`,
        'cases/s',
        ceiling.heldoutPerS,
        {
          baseline: { name: `\`xargs -P 32 docker run --rm\` (sleep ${sleep} s)`, samples: [ceiling.xargsPerS] },
          digits: 2,
        },
      ),
      one(`containers left after the concurrency-32 run`, 'containers', ceiling.heldout.containersLeft, {
        goal: { on: 'median', op: '<=', value: 0 },
        digits: 0,
      }),
    );
  }
  return metrics;
}
