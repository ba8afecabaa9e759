import { describe, expect, test } from 'vitest';
import { renderJunit, renderMarkdown, renderTable } from '../../src/report/index.js';
import { sampleSummary } from './sample-summary.js';
import { expectValidSummary } from './summary-json-schema.js';

const summary = sampleSummary();
const held = summary.commissions[0];
expectValidSummary(summary);

describe('console table', () => {
  test('one line per entry with Result, CI, pass^1, pass^k, gap, S and gate failures', () => {
    const text = renderTable(summary);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3 + summary.commissions.length);
    const ref = lines.find((l) => l.startsWith('csv-report') && l.includes('reference') && l.includes('heldout'))!;
    expect(ref).toContain(held.result.mean!.toFixed(1));
    expect(ref).toContain(`${held.result.ci95![0].toFixed(1)}–${held.result.ci95![1].toFixed(1)}`);
    expect(ref).toContain(held.passHatK['1']!.toFixed(2));
    expect(ref).toContain(`+${held.gap!.toFixed(1)}`);
    const opt = lines.find((l) => l.startsWith('speedup'))!;
    expect(opt).toContain(summary.commissions[3].optimization!.S.toFixed(1));
    expect(opt).toContain(`^2 ${summary.commissions[3].passHatK['2']!.toFixed(2)}`);
    expect(text).not.toMatch(/\x1b\[/);
  });
});

describe('report.md', () => {
  test('tables the entries, gap closure and failing cases with their gate or shortfall', () => {
    const md = renderMarkdown(summary);
    expect(md).toContain('# heldout report — run-2025-01-02');
    expect(md).toContain(`| csv-report | reference | heldout | fail | 4 | ${held.result.mean!.toFixed(1)} |`);
    expect(md).toMatch(/## Gap closure[\s\S]*\| speedup \| reference \| heldout \|/);
    expect(md).toContain('`c-03` #1: gate timeout failed: killed after 600 s');
    expect(md).toMatch(
      /`c-hostile` #1: Result 35\.0 < 60\.0; short: correctness 20\.0\/60\.0 \(cap 25\.0\), clarity 15\.0\/40\.0/,
    );
    expect(md).toContain('`ACME-2231`');
    // A pipe in case text must not split the table row, and raw markup must not survive.
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\|');
  });
});

describe('junit.xml', () => {
  const xml = renderJunit(summary);

  test('a testsuite per entry and a testcase per case × trial with matching counts', () => {
    expect(xml.match(/<testsuite /g)).toHaveLength(summary.commissions.length);
    const cases = summary.commissions.reduce((s, c) => s + c.cases.length, 0);
    expect(xml.match(/<testcase /g)).toHaveLength(cases);
    expect(xml).toContain(`<testsuites name="heldout run-2025-01-02" tests="${cases}" failures="`);
    expect(xml).toContain(
      '<testsuite name="csv-report · reference · heldout" tests="4" failures="2" errors="0" skipped="0"',
    );
  });

  test('failure messages name the gate or the dimensions that fell short; text is escaped', () => {
    expect(xml).toContain('<failure message="gate timeout failed: killed after 600 s" type="gate:timeout">');
    expect(xml).toContain('<failure message="gate error-exit failed: error-exit happened" type="gate:error-exit">');
    expect(xml).toMatch(/<failure message="Result 35\.0 &lt; 60\.0; short: correctness 20\.0\/60\.0 \(cap 25\.0\)/);
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('\u0001');
    expect(xml).toContain('&lt;script&gt;');
  });
});

describe('junit.xml names and properties', () => {
  test('classname + name is unique across deliveries and splits, the delivery in the classname', () => {
    const xml = renderJunit(summary);
    const ids = [...xml.matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('heldout.csv-report.reference.heldout c-01 #1');
    expect(ids).toContain('heldout.csv-report.overfit.heldout c-01 #1');
    expect(ids).toContain('heldout.csv-report.reference.dev d-01 #1');
  });

  test('two deliveries of one commission sharing a label are told apart by digest', () => {
    const twin = structuredClone(summary);
    const other = structuredClone(twin.commissions[0]);
    other.delivery = { ...other.delivery, digest: 'sha256:cccc1234deadbeef' };
    twin.commissions.push(other);
    const ids = [...renderJunit(twin).matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('heldout.csv-report.reference@cccc1234.heldout c-01 #1');
  });

  test("with caseProperties each testcase carries heldout's grading as properties", () => {
    const xml = renderJunit(summary, { caseProperties: true });
    const hostile = xml.slice(xml.indexOf('name="c-hostile #1"'));
    const props = hostile.slice(0, hostile.indexOf('</properties>'));
    expect(props).toContain('<property name="heldout.status" value="graded"/>');
    expect(props).toContain('<property name="heldout.result" value="35"/>');
    expect(props).toContain('<property name="heldout.passed" value="false"/>');
    expect(props).toContain('<property name="heldout.dimension.correctness" value="20.0/60.0 cap 25.0"/>');
    expect(props).toMatch(/<property name="heldout\.ceiling\.total" value="35\.0: missing units &lt;script&gt;/);
    expect(props).toContain('<property name="heldout.modelCalls" value="3"/>');
  });

  test('a gate suite holds a testcase per condition, failed where unmet; not-run cases are skipped testcases', () => {
    const gated = sampleSummary({
      gate: { minResult: 45 },
      coverage: {
        planned: 14,
        notRun: [
          { commission: 'csv-report', delivery: 'reference', split: 'heldout', id: 'c-09', trial: 1, why: 'filtered' },
        ],
      },
      gateContext: {},
    });
    const xml = renderJunit(gated);
    expect(xml).toContain('<testsuite name="heldout gate" tests="4" failures="2"');
    expect(xml).toContain(
      '<testcase classname="heldout.gate" name="csv-report · overfit: minResult" time="0.000">\n      <failure message="csv-report (overfit): held-out Result 27.0 &lt; minResult 45" type="gate:minResult"/>',
    );
    expect(xml).toContain('<failure message="the run is partial: 1 of 14 planned executions were not run (1 filtered)');
    expect(xml).toContain(
      '<testcase classname="heldout.csv-report.reference.heldout" name="c-09 #1" time="0.000">\n      <skipped message="not run: filtered"/>',
    );
  });
});
