/**
 * Issue 13 back-pressure: the per-engine gate caps running sandboxes over every process sharing its directory,
 * reclaims the slot of a dead holder, and hands out at most `startsPerSecond` start tokens per wall-clock second.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createEngineGate, gateSettings } from '../../src/sandbox/index.js';

const tmp = () => mkdtempSync(join(os.tmpdir(), 'heldout-gate-'));

describe('engine gate', () => {
  test('never more holders than the cap, over gates sharing a directory, and every waiter gets a slot', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 24 }),
        async (cap, work) => {
          const dir = tmp();
          try {
            // two gate instances stand for two worker processes of one run
            const gates = [0, 1].map(() => createEngineGate({ maxRunning: cap, startsPerSecond: 1000, dir }));
            let running = 0;
            let peak = 0;
            await Promise.all(
              work.map(async (ticks, i) => {
                const release = await gates[i % 2]!.acquire();
                running++;
                peak = Math.max(peak, running);
                expect(readdirSync(dir).filter((n) => n.startsWith('slot-')).length).toBeLessThanOrEqual(cap);
                for (let t = 0; t < ticks; t++) await new Promise((r) => setImmediate(r));
                running--;
                release();
                release(); // idempotent
              }),
            );
            expect(peak).toBeLessThanOrEqual(cap);
            expect(readdirSync(dir).filter((n) => n.startsWith('slot-'))).toEqual([]);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  test('a slot held by a process that died is taken over', async () => {
    const dir = tmp();
    try {
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
      writeFileSync(join(dir, 'slot-0'), dead);
      const gate = createEngineGate({ maxRunning: 1, startsPerSecond: 10, dir });
      const release = await gate.acquire();
      release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an abort while waiting for a slot rejects the wait', async () => {
    const dir = tmp();
    try {
      const gate = createEngineGate({ maxRunning: 1, startsPerSecond: 10, dir });
      const held = await gate.acquire();
      const ac = new AbortController();
      const waiting = gate.acquire(ac.signal);
      ac.abort(new Error('stop'));
      await expect(waiting).rejects.toThrow('stop');
      held();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('start tokens: at most startsPerSecond per wall-clock second', async () => {
    const dir = tmp();
    try {
      const gates = [0, 1].map(() => createEngineGate({ maxRunning: 8, startsPerSecond: 2, dir }));
      await Promise.all([0, 1, 2, 3, 4].map((i) => gates[i % 2]!.beforeStart()));
      const perSecond = new Map<string, number>();
      for (const n of readdirSync(dir)) {
        const m = /^start-(\d+)-(\d+)$/.exec(n);
        if (m) perSecond.set(m[1]!, (perSecond.get(m[1]!) ?? 0) + 1);
      }
      expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(5);
      for (const n of perSecond.values()) expect(n).toBeLessThanOrEqual(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('settings: explicit beats environment beats twice the engine CPUs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.option(fc.integer({ min: 1, max: 99 })), (ncpu, env) => {
        const e = env === null ? {} : { HELDOUT_MAX_SANDBOXES: String(env) };
        expect(gateSettings(ncpu, {}, e).maxRunning).toBe(env ?? Math.max(2, 2 * ncpu));
        expect(gateSettings(ncpu, { maxRunning: 3 }, e).maxRunning).toBe(3);
        expect(gateSettings(ncpu, {}, {}).startsPerSecond).toBe(32);
      }),
    );
  });
});
