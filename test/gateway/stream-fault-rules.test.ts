// The pure rules behind a provider's error inside a stream and a silent upstream (issue 31): properties over any
// error a provider may send, and the idle timeout's relation to a case's wall budget.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { classOfStatus, cutShort } from '../../src/gateway/classify.js';
import { idleTimeoutMs } from '../../src/gateway/silence.js';
import { STREAM_ERROR, streamFaultOf, streamFaultVerdict } from '../../src/gateway/stream-faults.js';

const anyCode = fc.oneof(
  fc.constant(null),
  fc.string(),
  fc.integer({ min: 100, max: 599 }),
  fc.constantFrom(
    'server_error',
    'rate_limit_exceeded',
    'invalid_prompt',
    'context_length_exceeded',
    'image_too_large',
  ),
);
const anyError = fc.record(
  { code: anyCode, type: fc.option(fc.string()), message: fc.option(fc.string({ maxLength: 2000 })) },
  { requiredKeys: [] },
);

describe('streamFaultOf / streamFaultVerdict', () => {
  test('any error, in any of the three shapes, is found, and its verdict is never success', () => {
    fc.assert(
      fc.property(anyError, fc.integer({ min: 0, max: 99 }), (e, seq) => {
        const shapes = [
          { obj: { error: e }, event: null },
          { obj: { ...e, type: 'error', sequence_number: seq }, event: 'error' },
          {
            obj: { type: 'response.failed', sequence_number: seq, response: { status: 'failed', error: e } },
            event: null,
          },
        ];
        for (const { obj, event } of shapes) {
          const f = streamFaultOf(obj, event);
          expect(f).not.toBeNull();
          expect((f!.message ?? '').length).toBeLessThanOrEqual(501);
          const v = streamFaultVerdict(f!);
          expect(v.error).toBe(STREAM_ERROR);
          expect(v.classification).not.toBe('success');
        }
      }),
    );
  });

  test('an error naming an HTTP status is judged as that status; the provider-side codes are always the provider', () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 599 }), fc.option(fc.string()), (status, type) => {
        const v = streamFaultVerdict({ event: 'error', code: String(status), type, message: null });
        expect(v.classification).toBe(classOfStatus(status));
      }),
    );
    for (const code of ['server_error', 'rate_limit_exceeded', 'insufficient_quota', 'invalid_api_key']) {
      const v = streamFaultVerdict({ event: 'error', code, type: 'invalid_request_error', message: null });
      expect(v.classification, code).toBe('provider_failure');
    }
    for (const code of ['invalid_prompt', 'context_length_exceeded', 'image_too_large', 'unsupported_value']) {
      expect(streamFaultVerdict({ event: 'response.failed', code, type: null, message: null }).classification).toBe(
        'candidate_request_error',
      );
    }
  });

  test('ordinary stream events are no fault', () => {
    const events = [
      { choices: [{ delta: { content: 'x' }, finish_reason: null }] },
      { choices: [], usage: { total_tokens: 3 } },
      { type: 'response.created', response: { status: 'in_progress', error: null } },
      { type: 'response.output_text.delta', delta: 'x' },
      { type: 'response.completed', response: { status: 'completed', error: null } },
      { error: null, choices: [] },
    ];
    for (const e of events) expect(streamFaultOf(e, null), JSON.stringify(e)).toBeNull();
  });
});

describe('idle timeout and the wall budget', () => {
  test('at most half the wall budget, never over the gateway’s own, never 0', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.option(fc.double({ min: 0.001, max: 100_000, noNaN: true })),
        (gw, wall) => {
          const idle = idleTimeoutMs(gw, wall);
          expect(idle).toBeGreaterThan(0);
          expect(idle).toBeLessThanOrEqual(gw);
          if (wall !== null) expect(idle).toBeLessThanOrEqual(Math.max(1, (wall * 1000) / 2));
          else expect(idle).toBe(gw);
        },
      ),
    );
    // `heldout init`'s 60 s gives 30 s; the commission default of 600 s gives the gateway's default 300 s
    expect(idleTimeoutMs(300_000, 60)).toBe(30_000);
    expect(idleTimeoutMs(300_000, 600)).toBe(300_000);
  });

  test('a hang-up is the caller’s unless the upstream was silent; close() is always the gateway’s', () => {
    expect(cutShort(false, false)).toEqual({ classification: 'candidate_request_error', error: 'client_aborted' });
    expect(cutShort(false, true)).toEqual({ classification: 'transport_failure', error: 'upstream_silent' });
    expect(cutShort(true, true)).toEqual({ classification: 'transport_failure', error: 'gateway_closed' });
  });
});
