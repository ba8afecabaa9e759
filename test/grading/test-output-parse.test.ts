import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { failedTestsSentence, parseTestOutput } from '../../src/grading/index.js';

// μ_reg's reason names the tests that failed: read from unittest's and pytest's own output, never guessed.
const UNITTEST = `FF.....F.F
======================================================================
FAIL: test_all_bullets_and_marks (test_parse.ParseTest.test_all_bullets_and_marks)
----------------------------------------------------------------------
Traceback (most recent call last):
AssertionError: Lists differ: ['dash'] != ['dash', 'star', 'plus upper']

======================================================================
ERROR: test_old_style (test_report.ReportTest)
----------------------------------------------------------------------
Traceback (most recent call last):
KeyError: 'totals'

----------------------------------------------------------------------
Ran 10 tests in 0.049s

FAILED (failures=1, errors=1)
`;

const PYTEST = `============================= test session starts ==============================
collected 5 items

tests/test_parse.py .F.                                                  [ 60%]
tests/test_report.py .E                                                  [100%]

=========================== short test summary info ============================
FAILED tests/test_parse.py::test_nested[2] - AssertionError: 2 != 3
ERROR tests/test_report.py::TestReport::test_cli
==================== 1 failed, 3 passed, 1 error in 0.12s =====================
`;

describe('parseTestOutput', () => {
  test('unittest: FAIL and ERROR blocks, dotted names, Ran N', () => {
    expect(parseTestOutput(UNITTEST)).toEqual({
      framework: 'unittest',
      failed: ['test_parse.ParseTest.test_all_bullets_and_marks', 'test_report.ReportTest.test_old_style'],
      ran: 10,
    });
    expect(failedTestsSentence(parseTestOutput(UNITTEST))).toBe(
      '2 of 10 tests failed: test_parse.ParseTest.test_all_bullets_and_marks, test_report.ReportTest.test_old_style',
    );
  });

  test('pytest: the short summary and the totals line', () => {
    expect(parseTestOutput(PYTEST)).toEqual({
      framework: 'pytest',
      failed: ['tests/test_parse.py::test_nested[2]', 'tests/test_report.py::TestReport::test_cli'],
      ran: 5,
    });
  });

  test('output of anything else names nothing', () => {
    expect(parseTestOutput('make: *** [check] Error 1')).toEqual({ framework: null, failed: [], ran: null });
    expect(failedTestsSentence(parseTestOutput(''))).toBeNull();
  });

  const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);
  test.prop([
    fc.uniqueArray(fc.tuple(ident, ident, ident), { minLength: 1, maxLength: 12, selector: (t) => t.join('.') }),
    fc.nat(50),
  ])('every unittest FAIL block is named once, as module.Class.test, with the count run', (tests, extra) => {
    const blocks = tests.map(
      ([m, c, t]) => `${'='.repeat(70)}\nFAIL: test_${t} (${m}.${c}.test_${t})\n${'-'.repeat(70)}\nAssertionError\n`,
    );
    const out = `${blocks.join('\n')}\n${'-'.repeat(70)}\nRan ${tests.length + extra} tests in 0.1s\n\nFAILED (failures=${tests.length})\n`;
    const r = parseTestOutput(out);
    expect(r.failed).toEqual(tests.map(([m, c, t]) => `${m}.${c}.test_${t}`));
    expect(r.ran).toBe(tests.length + extra);
    const sentence = failedTestsSentence(r)!;
    expect(sentence.startsWith(`${tests.length} of ${tests.length + extra} tests failed: `)).toBe(true);
    if (tests.length > 8) expect(sentence).toMatch(new RegExp(`and ${tests.length - 8} more$`));
  });

  test.prop([fc.string()])('never throws, and names only what a FAIL/ERROR/FAILED line says', (s) => {
    const r = parseTestOutput(s);
    for (const name of r.failed) expect(s).toContain(name.split('.').at(-1)!.split('::').at(-1)!);
  });
});
