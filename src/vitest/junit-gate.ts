import path from 'node:path';
import { JUnitReporter, type TestModule } from 'vitest/node';
import type { GateReport } from '../report/index.js';

/** The testsuite name (and classname) of the gate in Vitest's own JUnit file. */
export const GATE_SUITE = 'heldout gate';

interface GateTest {
  name: string;
  /** `fail` with its message, `pass`, or `skip` (a shard's deferred gate) with why. */
  state: 'pass' | 'fail' | 'skip';
  message?: string;
}

/** The gate as tests, one per condition (named as in heldout's own junit.xml) and one when it was not evaluated. */
export function gateTests(gate: GateReport): GateTest[] {
  if (gate.verdict === 'none' || gate.verdict === 'not-recorded') return [];
  const out: GateTest[] = gate.conditions.map((c) => ({
    name: `${c.commission === null ? 'run' : `${c.commission} · ${c.delivery}`}: ${c.condition}`,
    state: gate.verdict === 'deferred' ? 'skip' : c.met ? 'pass' : 'fail',
    message: c.message,
  }));
  if (gate.verdict === 'not-evaluated') out.push({ name: 'gate evaluated', state: 'fail', message: gate.reason ?? '' });
  if (gate.verdict === 'deferred' && out.length === 0) out.push({ name: 'gate evaluated', state: 'skip' });
  return out;
}

/**
 * A test module Vitest's JUnit reporter writes as one more `<testsuite>`: it reads only the file task's name, path,
 * tasks and result, and each test's name, mode, result, errors and annotations.
 */
function gateModule(tests: GateTest[], root: string): TestModule {
  const file: Record<string, unknown> = {
    type: 'suite',
    name: GATE_SUITE,
    filepath: path.join(root, GATE_SUITE),
    mode: 'run',
    meta: {},
    projectName: '',
    result: { state: tests.some((t) => t.state === 'fail') ? 'fail' : 'pass', duration: 0 },
  };
  file.tasks = tests.map((t) => ({
    type: 'test',
    name: t.name,
    mode: t.state === 'skip' ? 'skip' : 'run',
    file,
    meta: {},
    annotations: [],
    result:
      t.state === 'skip'
        ? undefined
        : t.state === 'pass'
          ? { state: 'pass', duration: 0 }
          : {
              state: 'fail',
              duration: 0,
              // `stacks: []`: the message is the whole story; there is no source frame to print.
              errors: [{ name: 'HeldoutGate', message: t.message, stack: `HeldoutGate: ${t.message}`, stacks: [] }],
            },
  }));
  return { task: file } as unknown as TestModule;
}

/**
 * Makes Vitest's own JUnit reporters write the gate as a `heldout gate` testsuite, failed where a condition is unmet,
 * so the file a CI viewer publishes is red when the job is. Both reporters run at once when the run ends; each
 * JUnit reporter waits for `gate()` (null when there is no gate record) before it writes.
 */
export function joinGateToJunit(reporters: unknown[], root: string, gate: () => Promise<GateReport | null>): void {
  for (const r of reporters) {
    if (!(r instanceof JUnitReporter)) continue;
    const own = r as unknown as { onTestRunEnd: (modules: TestModule[], ...rest: unknown[]) => Promise<void> };
    if ((own as { heldoutGate?: true }).heldoutGate) continue;
    const write = own.onTestRunEnd.bind(r);
    own.onTestRunEnd = async (modules, ...rest) => {
      const g = await gate();
      const tests = g ? gateTests(g) : [];
      await write(tests.length > 0 ? [...modules, gateModule(tests, root)] : modules, ...rest);
    };
    (own as { heldoutGate?: true }).heldoutGate = true;
  }
}
