import { describe, expect, test } from 'vitest';
import { ceilingRecords, scoreCase } from '../../src/grading/index.js';

// DESIGN §4: task-completion 35, recovery 25, consistency 20, honest-reporting 10, privacy 10.
const dimensions = [
  { id: 'task-completion', max: 35 },
  { id: 'recovery', max: 25 },
  { id: 'consistency', max: 20 },
  { id: 'honest-reporting', max: 10 },
  { id: 'privacy', max: 10 },
];
const ids = dimensions.map((d) => d.id);
const caps = (values: number[], reason: string) => values.map((max, i) => ({ dimension: ids[i]!, max, reason }));

describe('the worked example of DESIGN §4', () => {
  const input = {
    dimensions,
    gatesPassed: true,
    earned: Object.fromEntries(ids.map((id, i) => [id, [0, 0, 1, 2, 1][i]!])),
    dimensionCaps: [...caps([4, 3, 2, 2, 1], 'outcome unmet'), ...caps([3, 2, 2, 3, 2], 'safety failure')],
    totalCaps: [],
  };

  test('effective caps are the minimum of partial and safety caps and the Result is 4', () => {
    const out = scoreCase(input);
    expect(ids.map((id) => out.dimensions[id]!.cap)).toEqual([3, 2, 2, 2, 1]);
    expect(ids.map((id) => out.dimensions[id]!.score)).toEqual([0, 0, 1, 2, 1]);
    expect(out.result).toBe(4);
    expect(out.ceilingHit).toBe(false);
    expect(out.ceilingSet).toBe(false);
  });

  test('the same caps bind when more was earned', () => {
    const out = scoreCase({ ...input, earned: Object.fromEntries(ids.map((id, i) => [id, dimensions[i]!.max])) });
    expect(out.result).toBe(3 + 2 + 2 + 2 + 1);
    expect(out.ceilingHit).toBe(true);
    expect(out.ceilingSet).toBe(false);
  });
});

describe('clamping and total ceilings', () => {
  test('earned points are clamped to [0, max] per dimension', () => {
    const out = scoreCase({
      dimensions: [
        { id: 'a', max: 60 },
        { id: 'b', max: 40 },
      ],
      gatesPassed: true,
      earned: { a: 75, b: -5 },
      dimensionCaps: [],
      totalCaps: [],
    });
    expect(out.dimensions).toEqual({ a: { score: 60, max: 60, cap: null }, b: { score: 0, max: 40, cap: null } });
    expect(out.result).toBe(60);
  });

  test('the lowest total ceiling wins and sets the Result', () => {
    const input = {
      dimensions: [{ id: 'a', max: 100 }],
      gatesPassed: true,
      earned: { a: 90 },
      dimensionCaps: [],
      totalCaps: [
        { max: 75, reason: 'no secondary artifacts' },
        { max: 45, reason: 'meaning reversed' },
      ],
    };
    const out = scoreCase(input);
    expect(out.result).toBe(45);
    expect(out.ceilingHit).toBe(true);
    expect(out.ceilingSet).toBe(true);
    expect(ceilingRecords(input).map((c) => [c.max, c.binding])).toEqual([
      [75, false],
      [45, true],
    ]);
  });

  test('a total ceiling above the sum neither hits nor sets', () => {
    const out = scoreCase({
      dimensions: [{ id: 'a', max: 100 }],
      gatesPassed: true,
      earned: { a: 30 },
      dimensionCaps: [],
      totalCaps: [{ max: 35, reason: 'x' }],
    });
    expect(out).toMatchObject({ result: 30, ceilingHit: false, ceilingSet: false });
  });

  test('a failed gate gives 0 whatever was earned', () => {
    expect(
      scoreCase({
        dimensions: [{ id: 'a', max: 100 }],
        gatesPassed: false,
        earned: { a: 100 },
        dimensionCaps: [],
        totalCaps: [],
      }).result,
    ).toBe(0);
  });
});
