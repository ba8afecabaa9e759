import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FAMILIES } from '../../src/commission/index.js';
import { CASE_STATUSES, GATE_CATEGORIES } from '../../src/grading/index.js';
import {
  buildSummary,
  caseSummarySchema,
  commissionSummarySchema,
  migrateSummary,
  readSummary,
  renderMarkdown,
  SummaryReadError,
  summarizeCommission,
  summarySchema,
  summarySchemaV1,
} from '../../src/report/index.js';
import { sampleSummary } from './sample-summary.js';
import { expectValidSummary } from './summary-json-schema.js';
import { grade } from './synthetic-grades.js';

// The summary's type is z.infer of this schema, so the schema must hold every field heldout writes.
describe('summarySchema', () => {
  const doc = JSON.parse(JSON.stringify(sampleSummary()));

  test('takes the family, case status and gate lists from their owners', () => {
    expect(commissionSummarySchema.shape.family.options).toEqual([...FAMILIES]);
    expect(caseSummarySchema.shape.status.options).toEqual([...CASE_STATUSES]);
    expect(caseSummarySchema.shape.gate.unwrap().options).toEqual([...GATE_CATEGORIES]);
  });

  test('accepts what heldout writes and additive extras it does not know', () => {
    expect(summarySchema.safeParse(doc).error).toBeUndefined();
    expectValidSummary(doc);
    const more = structuredClone(doc);
    more.commissions[0].result.shares = { graded: 0.5 };
    more.commissions[0].cases[0].note = 'added later';
    expect(summarySchema.safeParse(more).success).toBe(true);
  });

  test('rejects an Extra heldout has always written when it is missing or mistyped', () => {
    const missing = structuredClone(doc);
    delete missing.commissions[0].result.infraErrors;
    expect(summarySchema.safeParse(missing).success).toBe(false);
    const mistyped = structuredClone(doc);
    mistyped.commissions[0].failureModes.gates = { crashed: 1 };
    expect(summarySchema.safeParse(mistyped).success).toBe(false);
  });

  test('an Extra added within the version stays optional (delivery.role)', () => {
    const older = structuredClone(doc);
    for (const c of older.commissions) delete c.delivery.role;
    expect(summarySchema.safeParse(older).success).toBe(true);
  });
});

describe('summary@1 documents read through the migration', () => {
  const v2 = JSON.parse(JSON.stringify(sampleSummary()));
  const v1 = {
    schema: 'heldout/summary@1',
    run: v2.run,
    commissions: v2.commissions.map(({ verdict: _v, flags: _f, notRun: _n, ...c }: any) => {
      const { shares: _s, ...failureModes } = c.failureModes;
      return { ...c, failureModes };
    }),
  };

  test('a summary@1 document becomes summary@2: figures kept, what v1 never recorded said so', () => {
    expect(summarySchemaV1.safeParse(v1).success).toBe(true);
    const m = migrateSummary(v1);
    expectValidSummary(m);
    expect(m).toMatchObject({ schema: 'heldout/summary@2', migratedFrom: 'heldout/summary@1', partial: null });
    expect(m.gate).toMatchObject({ verdict: 'not-recorded', conditions: [] });
    // Verdicts, flags, shares and family scores are derived as a v2 run without a gate derives them.
    expect(m.commissions).toEqual(v2.commissions);
    expect(m.families).toEqual(v2.families);
  });

  test('a summary@2 document is read as it is; anything else is refused naming the file and field', async () => {
    expect(migrateSummary(v2)).toEqual(v2);
    expect(() => migrateSummary({ schema: 'heldout/summary@9' }, 'old.json')).toThrow(
      'old.json: schema: expected "heldout/summary@2" or "heldout/summary@1", got "heldout/summary@9"',
    );
    const broken = structuredClone(v1);
    broken.commissions[0].result.mean = 'high';
    expect(() => migrateSummary(broken, 'b.json')).toThrow(/^b\.json: commissions\.0\.result\.mean: /);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-read-'));
    writeFileSync(path.join(dir, 'bad.json'), '{"schema":');
    await expect(readSummary(path.join(dir, 'bad.json'))).rejects.toThrow(SummaryReadError);
    await expect(readSummary(path.join(dir, 'none.json'))).rejects.toThrow(
      /none\.json: cannot be read \(no such file\)/,
    );
  });
});

describe("the optional fields other parts fill (DESIGN §14's v2 list)", () => {
  test('substituted images, τ² semantics and heldoutLeak validate, mark the row and are reported', () => {
    const doc = sampleSummary();
    const c = doc.commissions[0];
    const filled = summarizeCommission({
      id: c.id,
      family: c.family,
      split: c.split,
      delivery: c.delivery,
      cases: [grade({ id: 'x', result: 90 })],
      passRule: c.passRule,
      substitutedImages: [{ from: 'ubuntu:24.04', to: 'heldout/runtime:1' }],
      semantics: 'tau2@1.0.1',
      heldoutLeak: ['canary 3f2a…'],
    });
    const s = buildSummary({ run: doc.run, commissions: [filled] });
    expectValidSummary(s);
    expect(s.commissions[0].flags).toEqual(['heldout-leak', 'substituted-images']);
    const md = renderMarkdown(s);
    expect(md).toContain(
      'images substituted (figures are not those of the original environment): `ubuntu:24.04` → `heldout/runtime:1`',
    );
    expect(md).toContain('τ² tool semantics `tau2@1.0.1`');
    expect(md).toContain('held-out case text in the delivery (contamination): `canary 3f2a…`');
  });
});
