import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli/command.js';
import {
  declareOptions,
  integerOption,
  numberOption,
  optionalInteger,
  optionalNumber,
  pricingOption,
  requiredString,
  stringOption,
} from '../../src/cli/options.js';

describe("reading a command's options", () => {
  test('declareOptions gives the parseArgs table by kind', () => {
    expect(declareOptions({ string: ['out', 'trials'], strings: ['reporter'], boolean: ['json'] })).toEqual({
      out: { type: 'string' },
      trials: { type: 'string' },
      reporter: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    });
  });

  test('string options: absent is undefined; a required one names the command and the option', () => {
    expect(stringOption({ out: 'x' }, 'out')).toBe('x');
    expect(stringOption({}, 'out')).toBeUndefined();
    expect(requiredString({ domain: 'd' }, 'domain', 'taste sample', '<dir>')).toBe('d');
    expect(() => requiredString({}, 'domain', 'taste sample', '<dir>')).toThrow(
      new UsageError('taste sample: --domain <dir> is required'),
    );
  });

  test('numbers and whole numbers: the fallback when absent, a UsageError out of range', () => {
    expect(numberOption({}, 'x', 7)).toBe(7);
    expect(numberOption({ x: '2.5' }, 'x', 7)).toBe(2.5);
    expect(() => numberOption({ x: 'abc' }, 'x', 0)).toThrow('--x: expected a number ≥ 0 (for example --x 0), got abc');
    expect(() => numberOption({ x: '-1' }, 'x', 0)).toThrow('--x: expected a number ≥ 0 (for example --x 0), got -1');
    expect(() => numberOption({ g: 'abc' }, 'g', 0, Number.NEGATIVE_INFINITY)).toThrow(
      '--g: expected a number (for example --g 0), got abc',
    );
    expect(() => numberOption({ x: '' }, 'x', 0)).toThrow(UsageError);
    expect(integerOption({ k: '3' }, 'k', 1, 1)).toBe(3);
    expect(() => integerOption({ k: '2.5' }, 'k', 1, 1)).toThrow(
      '--k: expected a whole number ≥ 1 (for example --k 1), got 2.5',
    );
    expect(() => integerOption({ k: '0' }, 'k', 1, 1)).toThrow(
      '--k: expected a whole number ≥ 1 (for example --k 1), got 0',
    );
    expect(optionalInteger({}, 'k', 1)).toBeUndefined();
    expect(optionalInteger({ k: '4' }, 'k', 1)).toBe(4);
    expect(optionalNumber({}, 'g')).toBeUndefined();
    expect(optionalNumber({ g: '-3' }, 'g', Number.NEGATIVE_INFINITY)).toBe(-3);
  });

  test('--pricing: read and checked now, its absolute path; a bad file is a UsageError naming the file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pricing-option-'));
    try {
      const good = join(dir, 'good.yaml');
      writeFileSync(good, 'models:\n  m: { input: 1, output: 2 }\n');
      expect(pricingOption({ pricing: good })).toBe(good);
      expect(pricingOption({})).toBeUndefined();
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'models:\n  m: { input: 1, output: "two" }\n');
      expect(() => pricingOption({ pricing: bad })).toThrow(UsageError);
      expect(() => pricingOption({ pricing: bad })).toThrow(/^--pricing: .*bad\.yaml: models\.m\.output: /);
      expect(() => pricingOption({ pricing: join(dir, 'absent.yaml') })).toThrow(/--pricing: .*absent\.yaml: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
