// A case whose model calls failed on the provider's side and that then failed a gate is an infra-error with the
// ledger lines as evidence, never the delivery's Result 0; one whose gates held despite them is graded as usual
// (issue 17, item 4). The rule is pure: properties over any ledger, then gradeCase on real output directories.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  GATE_CATEGORIES,
  gradeCase,
  PROVIDER_EXPLAINED_GATES,
  PROVIDER_FAULT_CLASSES,
  providerFaultReason,
} from '../../src/grading/index.js';
import { caseRef, execution, makeCommission, oneDimension, outputDir } from './helpers.js';

const CLASSES = ['success', 'candidate_request_error', 'provider_failure', 'transport_failure'] as const;

const line = fc.record({
  callId: fc.stringMatching(/^call_[0-9a-z]{4,10}$/),
  role: fc.constantFrom('runtime', 'user', 'judge'),
  endpoint: fc.constantFrom('chat.completions', 'responses', 'embeddings', 'unknown'),
  status: fc.constantFrom(200, 400, 429, 500, 502, 503, 504),
  classification: fc.constantFrom(...CLASSES),
  error: fc.option(
    fc.constantFrom(
      'upstream_500',
      'stream_truncated',
      'upstream_timeout',
      'budget_exceeded',
      'upstream_stream_error',
      'upstream_silent',
    ),
  ),
  attempts: fc.nat(5),
});
const ledger = fc.array(fc.oneof({ weight: 9, arbitrary: line }, { weight: 1, arbitrary: fc.anything() }), {
  maxLength: 12,
});
const isFault = (e: unknown) =>
  typeof (e as { classification?: unknown })?.classification === 'string' &&
  PROVIDER_FAULT_CLASSES.includes((e as { classification: string }).classification);

describe('providerFaultReason (pure)', () => {
  test('an infra reason exactly when the gate is one a failed call explains and the ledger has a provider fault', () => {
    fc.assert(
      fc.property(fc.constantFrom(...GATE_CATEGORIES), ledger, (gate, entries) => {
        const reason = providerFaultReason(gate, 'the gate reason', entries);
        const expected = PROVIDER_EXPLAINED_GATES.includes(gate) && entries.some(isFault);
        expect(reason !== null).toBe(expected);
      }),
    );
  });

  test('the reason names the failed gate and its reason, and cites every faulty ledger line (the first five)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROVIDER_EXPLAINED_GATES), ledger, (gate, entries) => {
        const reason = providerFaultReason(gate, 'exited 1', entries);
        if (reason === null) return;
        expect(reason).toContain(`the ${gate} gate failed: exited 1`);
        const faults = entries.filter(isFault) as { callId: string }[];
        for (const f of faults.slice(0, 5)) expect(reason).toContain(f.callId);
        if (faults.length > 5) expect(reason).toContain(`and ${faults.length - 5} more`);
        expect(reason).toContain(`${faults.length} of ${entries.length} ledgered call`);
      }),
    );
  });

  test('candidate errors and successes alone never move the blame', () => {
    const own = fc.array(
      line.map((l) => ({ ...l, classification: l.status === 200 ? 'success' : 'candidate_request_error' })),
    );
    fc.assert(
      fc.property(fc.constantFrom(...GATE_CATEGORIES), own, (gate, entries) => {
        expect(providerFaultReason(gate, 'r', entries)).toBeNull();
      }),
    );
  });
});

describe('gradeCase with a ledger', () => {
  const commission = makeCommission(
    { artifacts: [{ path: 'answer.json', format: 'json' }], budgets: { memoryMb: 256 } },
    oneDimension([{ check: 'exists', file: 'answer.json', points: 100 }]),
  );
  const provider500 = {
    callId: 'call_abc123',
    role: 'runtime',
    endpoint: 'chat.completions',
    status: 500,
    upstreamStatus: 500,
    classification: 'provider_failure',
    error: 'upstream_500',
    attempts: 4,
  };
  const grade = (exec: Parameters<typeof execution>[0], files: Record<string, string>, entries: unknown[]) =>
    gradeCase({
      commission,
      caseRef: caseRef(),
      trial: 1,
      execution: execution(exec),
      outputDir: outputDir(files),
      ledger: { calls: 1, tokens: 0, entries },
      judge: null,
    });

  test('exit 1 after a provider 500 is an infra-error citing the ledger line, not error-exit with Result 0', async () => {
    const g = await grade({ exitCode: 1 }, {}, [provider500]);
    expect(g).toMatchObject({ status: 'infra-error', result: null, passed: false, gate: null });
    expect(g.reason).toContain('call_abc123 runtime chat.completions: 500 provider_failure upstream_500, 4 attempts');
    expect(g.reason).toContain('error-exit gate failed: the entry command exited 1');
  });

  test('an error the provider sent inside its 200 stream is quoted in the infra-error reason (issue 31)', async () => {
    const inStream = {
      ...provider500,
      status: 200,
      upstreamStatus: 200,
      error: 'upstream_stream_error',
      attempts: 1,
      upstreamError: { event: 'error', code: 'server_error', type: 'server_error', message: 'x'.repeat(400) },
    };
    const g = await grade({ exitCode: 1 }, {}, [inStream]);
    expect(g).toMatchObject({ status: 'infra-error', result: null });
    expect(g.reason).toContain(
      `200 provider_failure upstream_stream_error "server_error: ${'x'.repeat(106)}…", 1 attempt`,
    );
  });

  test('the same exit with only its own bad requests in the ledger stays its error-exit', async () => {
    const own = { ...provider500, status: 400, classification: 'candidate_request_error', error: 'upstream_400' };
    expect(await grade({ exitCode: 1 }, {}, [own])).toMatchObject({ status: 'gate-failed', gate: 'error-exit' });
  });

  test('valid outputs despite a provider failure: graded as usual', async () => {
    const ok = { ...provider500, callId: 'call_ok', status: 200, classification: 'success', error: null };
    const g = await grade({ exitCode: 0 }, { 'answer.json': '{"answer": 13}' }, [provider500, ok]);
    expect(g).toMatchObject({ status: 'graded', result: 100 });
  });

  test('an out-of-memory kill stays the delivery’s, whatever the provider did', async () => {
    expect(await grade({ exitCode: 137, oom: true }, {}, [provider500])).toMatchObject({
      status: 'gate-failed',
      gate: 'oom',
    });
  });
});
