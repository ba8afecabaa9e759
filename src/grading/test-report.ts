/**
 * Reads which tests failed from the console output of a Python test run (μ_reg's regression suite, a command
 * check): unittest's `FAIL: test_x (pkg.Class.test_x)` / `ERROR: …` blocks and its `Ran N tests` line, pytest's
 * short summary (`FAILED path::test - reason`, `ERROR path::test`) and its `N failed, M passed` line. Pure: text in,
 * names out; output it does not recognise gives no names, never a guess.
 */

export interface TestRunReport {
  framework: 'unittest' | 'pytest' | null;
  /** Failed or errored tests, in the order reported, each once. */
  failed: string[];
  /** Tests run, when the output says. */
  ran: number | null;
}

// unittest: "FAIL: test_name (module.Class.test_name)" (3.11+) or "FAIL: test_name (module.Class)".
const UNITTEST = /^(?:FAIL|ERROR): (\S+) \(([^)\s]+)\)\s*$/gm;
const UNITTEST_RAN = /^Ran (\d+) tests? in /m;
// pytest's short test summary info, with or without "-rA"-style reasons after " - ".
const PYTEST = /^(?:FAILED|ERROR) (\S+?::\S+?)(?: - .*)?$/gm;
const PYTEST_TOTALS =
  /=*\s*((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s/;

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** The failed tests and the count run, from a test run's stdout and stderr together (pure). */
export function parseTestOutput(output: string): TestRunReport {
  const unittest = [...output.matchAll(UNITTEST)].map(([, name, where]) =>
    where.endsWith(`.${name}`) ? where : `${where}.${name}`,
  );
  const ran = UNITTEST_RAN.exec(output);
  if (unittest.length > 0 || ran) {
    return { framework: 'unittest', failed: unique(unittest), ran: ran ? Number(ran[1]) : null };
  }
  const pytest = [...output.matchAll(PYTEST)].map((m) => m[1]);
  const totals = PYTEST_TOTALS.exec(output);
  if (pytest.length > 0 || totals) {
    let ran: number | null = null;
    if (totals) {
      ran = 0;
      for (const m of totals[1].matchAll(/(\d+) (failed|passed|errors?|xfailed|xpassed)/g)) ran += Number(m[1]);
    }
    return { framework: 'pytest', failed: unique(pytest), ran };
  }
  return { framework: null, failed: [], ran: null };
}

/** How many failed test names a reason lists before "and N more". */
const NAMED = 8;

/**
 * A sentence naming the failed tests, `4 of 10 tests failed: a, b, c, d`, or null when the output names none (the
 * caller then shows the output's tail).
 */
export function failedTestsSentence(report: TestRunReport): string | null {
  const n = report.failed.length;
  if (n === 0) return null;
  const of = report.ran !== null ? ` of ${report.ran}` : '';
  const names = report.failed.slice(0, NAMED).join(', ');
  const more = n > NAMED ? ` and ${n - NAMED} more` : '';
  return `${n}${of} test${n === 1 && !of ? '' : 's'} failed: ${names}${more}`;
}
