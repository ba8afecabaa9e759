import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { createLimiter, gateFromExecution } from '../../src/sandbox/index.js';

describe('createLimiter', () => {
  test.prop(
    [fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 25 })],
    {
      numRuns: 30,
    },
  )('never runs more than n at once, runs everything, keeps results', async (n, delays) => {
    const limit = createLimiter(n);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      delays.map((d, i) =>
        limit(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, d));
          active--;
          return i;
        }),
      ),
    );
    expect(results).toEqual(delays.map((_, i) => i));
    expect(peak).toBeLessThanOrEqual(n);
    expect(peak).toBe(Math.min(n, delays.length));
  });

  test('a rejection frees its slot', async () => {
    const limit = createLimiter(1);
    await expect(limit(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(limit(async () => 2)).resolves.toBe(2);
  });
});

describe('gateFromExecution', () => {
  const exec = (over: Partial<{ exitCode: number | null; timedOut: boolean; oom: boolean }>) => ({
    exitCode: 0,
    timedOut: false,
    oom: false,
    ...over,
  });
  test('maps causes, not symptoms', () => {
    expect(gateFromExecution(exec({}))).toBeNull();
    expect(gateFromExecution(exec({ exitCode: 2 }))).toBe('error-exit');
    expect(gateFromExecution(exec({ exitCode: 2 }), [0, 2])).toBeNull();
    expect(gateFromExecution(exec({ exitCode: null }))).toBe('error-exit');
    expect(gateFromExecution(exec({ exitCode: 137, timedOut: true }))).toBe('timeout');
    expect(gateFromExecution(exec({ exitCode: 137, oom: true }))).toBe('oom');
  });
});
