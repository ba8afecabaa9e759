import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { boundEvidence, boundText, EVIDENCE_CHARS } from '../../src/report/evidence-bounds.js';
import { summarizeCommission } from '../../src/report/index.js';
import { delivery, grade } from './synthetic-grades.js';

/** No lone surrogate (String.prototype.isWellFormed is past this project's ES target). */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('boundText', () => {
  test.prop([fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 1, max: 300 })])(
    'keeps a short text whole, else its tail after a note saying how much was cut and where the rest is',
    (text, max) => {
      const out = boundText(text, max, 'cases/x.meta.json');
      if (text.length <= max) expect(out).toBe(text);
      else {
        const [note, ...rest] = out.split('\n');
        const tail = rest.join('\n');
        expect(text.endsWith(tail)).toBe(true);
        expect(tail.length === max || tail.length === max - 1).toBe(true);
        expect(note).toBe(`[… ${text.length - max} characters cut; the full text is in cases/x.meta.json]`);
        // A surrogate pair is never split: the tail is well-formed wherever the text was.
        expect(wellFormed(tail)).toBe(wellFormed(text));
      }
    },
  );
});

describe('boundEvidence', () => {
  test('a case with nothing over its bounds is returned as it is, and names no record', () => {
    const [c] = summarizeCommission({
      id: 'x',
      family: 'creation',
      split: 'heldout',
      delivery,
      passRule: { minResult: 60 },
      cases: [grade({ id: 'a' })],
    }).cases;
    expect(boundEvidence(c, () => 'never asked')).toBe(c);
  });

  test('every long text is bounded, the figures are untouched, and the record is named once', () => {
    const long = 'y'.repeat(EVIDENCE_CHARS * 3);
    const [c] = summarizeCommission({
      id: 'x',
      family: 'editing',
      split: 'heldout',
      delivery,
      passRule: { minResult: 60 },
      recordOf: (id, trial) => `cases/x/reference/heldout/${id}-t${trial}.meta.json`,
      cases: [
        grade({
          id: 'a',
          trial: 2,
          reason: long,
          outcomes: [{ id: 'o1', satisfied: false, safety: null, evidence: long }],
          judge: { model: 'm', assessment: long, majorErrors: [long, 'short'], cached: false },
          claimsContradicted: [long],
          editing: { muNew: true, muReg: false, evidence: long, failedTests: [long] },
        }),
      ],
    }).cases;
    const texts = [c.reason!, c.outcomes[0].evidence, c.judge!.assessment, c.editing!.evidence];
    for (const t of texts) expect(t.length).toBeLessThan(EVIDENCE_CHARS + 120);
    for (const t of [...c.judge!.majorErrors.slice(0, 1), ...c.claimsContradicted, ...c.editing!.failedTests!])
      expect(t.length).toBeLessThan(620);
    expect(c.judge!.majorErrors[1]).toBe('short');
    expect(c.record).toBe('cases/x/reference/heldout/a-t2.meta.json');
    expect(c.reason).toContain('the full text is in cases/x/reference/heldout/a-t2.meta.json');
    expect(c.dimensions).toEqual({
      correctness: { score: 60, max: 60, cap: null },
      clarity: { score: 20, max: 40, cap: null },
    });
    expect(c.result).toBe(80);
  });
});
