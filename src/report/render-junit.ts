import { columnsOf } from './columns.js';
import { caseFailureMessage, deliveryLabel, fmt } from './format.js';
import type { CaseSummary, CommissionSummary, NotRunCase, Summary } from './schema.js';

/** XML 1.0 cannot carry most control characters even escaped; case output may contain any of them. */
function xml(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);
const property = (name: string, value: unknown, indent: string) =>
  `${indent}<property name="${xml(name)}" value="${xml(String(value ?? ''))}"/>`;

/** Options of `renderJunit`. */
export interface JunitOptions {
  /**
   * Write each testcase's grading as `<properties>` and the skipped count on `<testsuites>` (read by GitLab and
   * Jenkins' JUnit plugin, outside the common junit-10.xsd); default false: the grading is the testcase's `<system-out>`.
   */
  caseProperties?: boolean;
}

/** heldout's grading of one case × trial, raw values, names prefixed `heldout.`. */
function caseGrading(x: CaseSummary): [string, unknown][] {
  const p: [string, unknown][] = [
    ['heldout.status', x.status],
    ['heldout.result', x.result],
    ['heldout.passed', x.passed],
  ];
  if (x.gate) p.push(['heldout.gate', x.gate]);
  for (const [id, d] of Object.entries(x.dimensions)) {
    p.push([`heldout.dimension.${id}`, `${fmt(d.score)}/${fmt(d.max)}${d.cap !== null ? ` cap ${fmt(d.cap)}` : ''}`]);
  }
  for (const c of x.ceilings.filter((c) => c.binding)) {
    p.push([`heldout.ceiling.${c.kind === 'total' ? 'total' : c.dimension}`, `${fmt(c.max)}: ${c.reason}`]);
  }
  if (x.editing) p.push(['heldout.muNew', x.editing.muNew], ['heldout.muReg', x.editing.muReg ?? '']);
  p.push(['heldout.modelCalls', x.modelCalls], ['heldout.tokens', x.tokens], ['heldout.wallMs', x.wallMs]);
  if (x.exitCode !== null) p.push(['heldout.exitCode', x.exitCode]);
  return p;
}

/** The grading inside a testcase: `<properties>` when asked, else `name=value` lines of `<system-out>` (valid xsd). */
function caseProperties(x: CaseSummary, asProperties: boolean): string[] {
  const p = caseGrading(x);
  if (asProperties)
    return ['      <properties>', ...p.map(([k, v]) => property(k, v, '        ')), '      </properties>'];
  return [`      <system-out>${xml(p.map(([k, v]) => `${k}=${String(v ?? '')}`).join('\n'))}</system-out>`];
}

/**
 * The delivery's name in classnames: its label, with `@` and the digest's first 8 hex digits where two deliveries
 * of one commission share a label, so `classname` + `name` is unique in the file.
 */
function junitDelivery(commissions: readonly CommissionSummary[]): (c: CommissionSummary) => string {
  const digests = new Map<string, Set<string>>();
  for (const c of commissions) {
    const k = `${c.id}\0${deliveryLabel(c)}`;
    digests.set(k, (digests.get(k) ?? new Set()).add(c.delivery.digest));
  }
  return (c) => {
    const label = deliveryLabel(c);
    const shared = (digests.get(`${c.id}\0${label}`)?.size ?? 1) > 1;
    return shared ? `${label}@${c.delivery.digest.replace(/^sha256:/, '').slice(0, 8)}` : label;
  };
}

interface SuiteCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
}

function testcase(
  x: CaseSummary,
  c: CommissionSummary,
  classname: string,
  n: SuiteCounts,
  asProperties: boolean,
): string {
  n.ms += x.wallMs;
  const open = `    <testcase classname="${xml(classname)}" name="${xml(`${x.id} #${x.trial}`)}" time="${seconds(x.wallMs)}">`;
  const msg = caseFailureMessage(x, c.passRule.minResult);
  const inner = caseProperties(x, asProperties);
  if (msg !== null) {
    const detail = [msg, x.stderrTail ? `--- stderr (tail) ---\n${x.stderrTail}` : ''].filter(Boolean).join('\n');
    if (x.status === 'infra-error') {
      n.errors++;
      inner.push(`      <error message="${xml(msg)}" type="infra-error">${xml(detail)}</error>`);
    } else if (x.status === 'unscored') {
      n.skipped++;
      inner.push(`      <skipped message="${xml(msg)}"/>`);
    } else {
      n.failures++;
      const type = x.status === 'gate-failed' ? `gate:${x.gate ?? 'unknown'}` : 'shortfall';
      inner.push(`      <failure message="${xml(msg)}" type="${xml(type)}">${xml(detail)}</failure>`);
    }
  }
  return [open, ...inner, '    </testcase>'].join('\n');
}

function notRunCase(x: NotRunCase, classname: string): string {
  return `    <testcase classname="${xml(classname)}" name="${xml(`${x.id} #${x.trial}`)}" time="0.000">\n      <skipped message="${xml(`not run: ${x.why}`)}"/>\n    </testcase>`;
}

/**
 * `junit.xml`: a testsuite per commission × delivery × split, a testcase per case × trial named `<case> #<trial>`
 * with classname `heldout.<commission>.<delivery>.<split>` (`<label>@<digest>` where two deliveries of a commission
 * share a label), so every testcase is unique across deliveries. Each carries heldout's grading as `<properties>`; a failed gate or a
 * shortfall is a <failure> naming the gate or the dimensions, infra errors are <error>, unscored and not-run cases
 * <skipped>. Valid against junit-10.xsd unless `caseProperties` asks for the extension. A `heldout gate` suite holds a testcase per gate condition, failed when unmet, so a CI test viewer
 * shows why the run went red.
 */
export function renderJunit(summary: Summary, options: JunitOptions = {}): string {
  const asProperties = options.caseProperties === true;
  const parts: string[] = [];
  const total: SuiteCounts = { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 };
  const properties = columnsOf('junit');
  const key = junitDelivery(summary.commissions);
  const notRun = new Map<string, NotRunCase[]>();
  for (const x of summary.partial?.cases ?? []) {
    const k = `${x.commission}\0${x.delivery}\0${x.split}`;
    notRun.set(k, [...(notRun.get(k) ?? []), x]);
  }
  const suite = (name: string, n: SuiteCounts, head: string[], body: string[]) => {
    for (const f of ['tests', 'failures', 'errors', 'skipped', 'ms'] as const) total[f] += n[f];
    parts.push(
      `  <testsuite name="${xml(name)}" tests="${n.tests}" failures="${n.failures}" errors="${n.errors}" skipped="${n.skipped}" time="${seconds(n.ms)}" timestamp="${xml(summary.run.startedAt)}">`,
      ...head,
      ...body,
      '  </testsuite>',
    );
  };

  const gate = summary.gate;
  if (gate.conditions.length > 0 || gate.verdict === 'not-evaluated') {
    const n: SuiteCounts = { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 };
    const deferred = gate.verdict === 'deferred';
    const body = gate.conditions.map((c) => {
      n.tests++;
      const name = `${c.commission === null ? 'run' : `${c.commission} · ${c.delivery}`}: ${c.condition}`;
      const open = `    <testcase classname="heldout.gate" name="${xml(name)}" time="0.000"`;
      // A shard's figures are not the run's: its conditions are the merge's to judge.
      if (deferred) {
        n.skipped++;
        return `${open}>\n      <skipped message="${xml(`${gate.reason}; on this shard: ${c.message}`)}"/>\n    </testcase>`;
      }
      if (c.met) return `${open}/>`;
      n.failures++;
      return `${open}>\n      <failure message="${xml(c.message)}" type="gate:${c.condition}"/>\n    </testcase>`;
    });
    if (gate.verdict === 'not-evaluated') {
      n.tests++;
      n.failures++;
      body.push(
        `    <testcase classname="heldout.gate" name="gate evaluated" time="0.000">\n      <failure message="${xml(gate.reason ?? 'not evaluated')}" type="gate:not-evaluated"/>\n    </testcase>`,
      );
    }
    const head = ['    <properties>', property('verdict', gate.verdict, '      '), '    </properties>'];
    suite('heldout gate', n, head, body);
  }

  const seen = new Set<string>();
  for (const c of summary.commissions) {
    const classname = `heldout.${c.id}.${key(c)}.${c.split}`;
    const n: SuiteCounts = { tests: c.cases.length, failures: 0, errors: 0, skipped: 0, ms: 0 };
    const body = c.cases.map((x) => testcase(x, c, classname, n, asProperties));
    const k = `${c.id}\0${deliveryLabel(c)}\0${c.split}`;
    seen.add(k);
    for (const x of notRun.get(k) ?? []) {
      n.tests++;
      n.skipped++;
      body.push(notRunCase(x, classname));
    }
    const head = [
      '    <properties>',
      ...properties.map((col) => property(col.header, col.value(c), '      ')),
      '    </properties>',
    ];
    suite(`${c.id} · ${key(c)} · ${c.split}`, n, head, body);
  }
  for (const [k, cases] of notRun) {
    if (seen.has(k)) continue;
    const [commission, delivery, split] = k.split('\0');
    const classname = `heldout.${commission}.${delivery}.${split}`;
    const n: SuiteCounts = { tests: cases.length, failures: 0, errors: 0, skipped: cases.length, ms: 0 };
    suite(
      `${commission} · ${delivery} · ${split}`,
      n,
      [],
      cases.map((x) => notRunCase(x, classname)),
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`heldout ${summary.run.id}`)}" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}"${asProperties ? ` skipped="${total.skipped}"` : ''} time="${seconds(total.ms)}">`,
    ...parts,
    '</testsuites>',
    '',
  ].join('\n');
}
