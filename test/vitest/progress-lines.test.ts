import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { Progress, progressLine } from '../../src/vitest/progress.js';

describe('progress lines for non-TTY runs', () => {
  test('a line says cases done of total, failures, infra errors, elapsed and the ETA', () => {
    expect(progressLine({ done: 12, total: 77, failed: 3, infra: 1, elapsedMs: 62_000 })).toBe(
      'heldout: 12/77 cases · 3 failed · 1 infra · 1m02s elapsed · ETA 5m36s',
    );
    expect(progressLine({ done: 0, total: 9, failed: 0, infra: 0, elapsedMs: 900 })).toBe(
      'heldout: 0/9 cases · 0 failed · 1s elapsed',
    );
    expect(progressLine({ done: 9, total: 9, failed: 0, infra: 0, elapsedMs: 3_725_000 })).toBe(
      'heldout: 9/9 cases · 0 failed · 1h02m elapsed',
    );
  });

  test('a slow run prints every case; a fast one at most one line per interval, and always the last', () => {
    let now = 0;
    const lines: string[] = [];
    const p = new Progress({ write: (l) => lines.push(l), now: () => now, everyMs: 2000, heartbeatMs: 0 });
    p.planned(5);
    for (const dt of [3000, 3000]) {
      now += dt;
      p.finished(false, false);
    }
    expect(lines).toHaveLength(2);
    now += 100;
    p.finished(true, false);
    now += 100;
    p.finished(false, true);
    expect(lines).toHaveLength(2);
    now += 100;
    p.finished(false, false);
    expect(lines).toHaveLength(3);
    expect(lines.at(-1)).toBe('heldout: 5/5 cases · 1 failed · 1 infra · 6s elapsed');
    p.stop();
  });

  test("every planned execution counts from the start; a file's collected count replaces its estimate", () => {
    const lines: string[] = [];
    const p = new Progress({ write: (l) => lines.push(l), now: () => 0, everyMs: 0, heartbeatMs: 0 });
    p.expect('a/commission.yaml', 33);
    p.expect('b/commission.yaml', 20);
    p.planned(33, 'a/commission.yaml');
    p.finished(false, false);
    expect(lines.at(-1)).toMatch(/^heldout: 1\/53 cases · /);
    // A -t filter leaves 5 of b's cases skipped: known only when b is collected.
    p.planned(15, 'b/commission.yaml');
    p.finished(false, false);
    expect(lines.at(-1)).toMatch(/^heldout: 2\/48 cases · /);
    p.stop();
  });

  test.prop([fc.nat(10_000), fc.nat(10_000), fc.nat(10 ** 8)])(
    'the ETA extrapolates the pace so far',
    (done, left, ms) => {
      const line = progressLine({ done, total: done + left, failed: 0, infra: 0, elapsedMs: ms });
      expect(line.includes('ETA')).toBe(done > 0 && left > 0);
      expect(line.startsWith(`heldout: ${done}/${done + left} cases · `)).toBe(true);
    },
  );
});
