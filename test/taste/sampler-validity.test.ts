import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  ContrastiveSampler,
  loadDomain,
  Rng,
  ruleValidator,
  sampleLength,
  type TrainResult,
  trainSampler,
  type ValidityReport,
  validityReport,
} from '../../src/taste/index.js';

const data = path.resolve(import.meta.dirname, '../../../shared/data/tau2');
const airline = loadDomain(path.join(data, 'airline'));
const names = airline.tools.map((t) => t.name);
const gold = airline.gold.map((g) => g.tools);

describe('rule validator', () => {
  test('accepts real gold sequences on every domain (≥ 95 % of non-empty ones)', () => {
    for (const name of ['airline', 'retail', 'telecom']) {
      const d = loadDomain(path.join(data, name));
      const v = ruleValidator(d);
      const nonEmpty = d.gold.filter((g) => g.tools.length > 0);
      const ok = nonEmpty.filter((g) => v.check(g.tools).plausible).length;
      expect(ok / nonEmpty.length, name).toBeGreaterThanOrEqual(0.95);
    }
  });

  test('names the problematic calls', () => {
    const v = ruleValidator(airline);
    const r = v.check(['get_user_details', 'transfer_to_human_agents', 'cancel_reservation']);
    expect(r.plausible).toBe(false);
    expect(r.problematicIndices).toEqual([2]);
    expect(v.check(['calculate']).problematicIndices).toEqual([0]);
    expect(v.check(['get_reservation_details', 'send_certificate']).problematicIndices).toEqual([1]);
    expect(v.check(['get_user_details', 'get_reservation_details', 'send_certificate']).plausible).toBe(true);
    expect(v.check(['cancel_reservation', 'cancel_reservation']).problematicIndices).toEqual([1]);
  });

  test('rejects most uniformly random sequences', () => {
    const v = ruleValidator(airline);
    const rng = new Rng(1);
    let ok = 0;
    for (let i = 0; i < 1000; i++) {
      const s = Array.from({ length: sampleLength(rng) }, () => names[rng.int(names.length)]);
      if (v.check(s).plausible) ok++;
    }
    expect(ok / 1000).toBeLessThan(0.2);
  });
});

describe('adaptive contrastive sampler on airline (rules, 3,000 attempts, seed 7)', () => {
  let train: TrainResult;
  let report: ValidityReport;
  beforeAll(async () => {
    const v = ruleValidator(airline);
    train = await trainSampler(names, gold, v, { seed: 7, attempts: 3000 });
    report = await validityReport(train, v);
  });

  test('validity: trained ≥ 0.85, ≥ 5× uniform, gold ≥ 0.95', () => {
    expect(report.attempts).toBe(3000);
    expect(report.unique).toBeLessThanOrEqual(3000);
    expect(report.accepted).toBeLessThanOrEqual(report.unique);
    expect(report.validity.trained).toBeGreaterThanOrEqual(0.85);
    expect(report.validity.trained).toBeGreaterThanOrEqual(5 * report.validity.uniform);
    expect(report.validity.gold).toBeGreaterThanOrEqual(0.95);
    expect(report.validity.goldInit).toBeLessThan(report.validity.trained);
  });

  test('the same seed reproduces tables and report; tables survive JSON', async () => {
    const v = ruleValidator(airline);
    const again = await trainSampler(names, gold, v, { seed: 7, attempts: 3000 });
    expect(Buffer.from(again.sampler.cPlus.buffer).equals(Buffer.from(train.sampler.cPlus.buffer))).toBe(true);
    expect(Buffer.from(again.sampler.cMinus.buffer).equals(Buffer.from(train.sampler.cMinus.buffer))).toBe(true);
    expect(await validityReport(again, v)).toEqual(report);
    const restored = ContrastiveSampler.fromJSON(JSON.parse(JSON.stringify(train.sampler.toJSON())));
    expect(restored.generate(12, 1, new Rng(3))).toEqual(train.sampler.generate(12, 1, new Rng(3)));
    const other = await trainSampler(names, gold, v, { seed: 8, attempts: 300 });
    expect(Buffer.from(other.sampler.cPlus.buffer).equals(Buffer.from(train.sampler.cPlus.buffer))).toBe(false);
  });
});

describe('sampler update rules', () => {
  test('C+ takes every BOS-padded trigram, C− only windows ending at problematic indices', () => {
    const s = new ContrastiveSampler(['a', 'b', 'c']);
    s.ingest(['a', 'b', 'c'], true);
    const V = s.V;
    const id = (u: number, v: number, w: number) => (u * V + v) * V + w;
    expect(s.cPlus[id(0, 0, 2)]).toBe(1);
    expect(s.cPlus[id(0, 2, 3)]).toBe(1);
    expect(s.cPlus[id(2, 3, 4)]).toBe(1);
    expect(s.cPlus.reduce((x, y) => x + y, 0)).toBe(3);
    s.ingest(['c', 'a', 'b'], false, [1]);
    expect(s.cMinus[id(0, 4, 2)]).toBe(1);
    expect(s.cMinus.reduce((x, y) => x + y, 0)).toBe(1);
  });

  test('length law stays in [1, 15] and generation never emits BOS/EOS', () => {
    const rng = new Rng(5);
    const s = new ContrastiveSampler(['a', 'b']);
    for (let i = 0; i < 2000; i++) {
      const L = sampleLength(rng);
      expect(L >= 1 && L <= 15 && Number.isInteger(L)).toBe(true);
    }
    expect(s.generate(15, 1, rng).every((t) => t === 'a' || t === 'b')).toBe(true);
  });
});
