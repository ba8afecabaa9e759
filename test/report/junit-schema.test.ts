import { describe, expect, test } from 'vitest';
import { renderJunit } from '../../src/report/index.js';
import { junitCounts, validateJunit } from '../helpers/junit.js';
import { sampleSummary } from './sample-summary.js';

const notRun = [
  {
    commission: 'csv-report',
    delivery: 'reference',
    split: 'heldout' as const,
    id: 'c-09',
    trial: 1,
    why: 'filtered' as const,
  },
];

// heldout's junit.xml against the common JUnit shape (junit-common.xsd: what Jenkins' junit-10.xsd holds), checked by
// libxml2's own validator.
describe('junit.xml and the common JUnit schema', () => {
  test('validates by default, with each case grading in <system-out> and no skipped count on <testsuites>', async () => {
    const gated = sampleSummary({ gate: { minResult: 45 }, coverage: { planned: 14, notRun }, gateContext: {} });
    const xml = renderJunit(gated);
    const v = await validateJunit(xml);
    expect(v.code, v.out).toBe(0);
    expect(v.out).toContain('validates');
    expect(xml).not.toMatch(/<testsuites [^>]*skipped=/);
    const hostile = xml.slice(xml.indexOf('name="c-hostile #1"'));
    const out = hostile.slice(0, hostile.indexOf('</system-out>'));
    expect(out).toContain('<system-out>heldout.status=graded\nheldout.result=35\nheldout.passed=false\n');
    expect(out).toContain('heldout.dimension.correctness=20.0/60.0 cap 25.0');
    // What a viewer counts: the failed cases and the failed gate conditions (and the not-evaluated gate).
    const counts = await junitCounts(xml);
    expect(counts.failed).toContain('csv-report · overfit: minResult');
    expect(counts.failed).toContain('gate evaluated');
    expect(counts.failed).toContain('c-hostile #1');
  });

  test('the properties extension is written only when asked, and is what the schema refuses', async () => {
    const xml = renderJunit(sampleSummary(), { caseProperties: true });
    expect(xml).toMatch(/<testsuites [^>]*skipped="\d+"/);
    const v = await validateJunit(xml);
    expect(v.code).not.toBe(0);
    expect(v.out).toMatch(/Element 'properties': This element is not expected/);
    expect(v.out).toMatch(/attribute 'skipped' is not allowed/);
  });

  test("a shard's deferred gate is skipped testcases naming the merge, not failures", async () => {
    const shard = sampleSummary({
      gate: { minResult: 45 },
      coverage: { planned: 14, notRun: [], shard: '1/2' },
      gateContext: {},
    });
    expect(shard.gate.verdict).toBe('deferred');
    const xml = renderJunit(shard);
    expect((await validateJunit(xml)).code).toBe(0);
    const gateSuite = xml.slice(xml.indexOf('<testsuite name="heldout gate"'), xml.indexOf('</testsuite>'));
    expect(gateSuite).toContain('failures="0"');
    expect(gateSuite).toMatch(
      /<skipped message="this is shard 1\/2: the gate is evaluated on the merged run \(vitest --merge-reports\); on this shard: csv-report \(overfit\): held-out Result 27\.0 &lt; minResult 45"\/>/,
    );
  });
});
