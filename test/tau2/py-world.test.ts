import { spawnSync } from 'node:child_process';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { sorted } from '../../src/tau2/py/builtins.js';
import { bindKwargs } from '../../src/tau2/py/call.js';
import { jsonString, pyJsonDumps, pyJsonParse, strCompare } from '../../src/tau2/py/json.js';
import { t as F, ValidationError, validateAs } from '../../src/tau2/py/model.js';
import { fixedText, floatRepr, roundFloat } from '../../src/tau2/py/number.js';
import { PyFloat, type PyValue } from '../../src/tau2/py/values.js';
import { referenceUnavailable } from './tau2-reference.js';

/** Python values as JSON gives them: ints, floats (boxed), str, bool, None, lists and dicts. */
const pyValue: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => new PyFloat(x)),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(fc.tuple(fc.string(), tie('v')), { maxLength: 4 }).map((es) => new Map(es)),
  ),
})).v;

describe('the Python world (pure logic)', () => {
  test.prop([fc.double({ noNaN: true, noDefaultInfinity: true })])('repr(float) reads back as the same double', (x) => {
    const text = floatRepr(x);
    expect(Number(text)).toBe(x === 0 ? (Object.is(x, -0) ? -0 : 0) : x);
    expect(text).toMatch(/^-?(\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/);
  });

  test.prop([pyValue])('json.dumps then json.loads gives the value back, dict key order and float boxes kept', (v) => {
    const text = pyJsonDumps(v);
    expect(pyJsonDumps(pyJsonParse(text))).toBe(text);
  });

  test.prop([fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.integer({ min: 0, max: 6 })])(
    "round(x, n) is format(x, '.nf') read back, within half a unit of the last place",
    (x, n) => {
      expect(roundFloat(x, n)).toBe(Number(fixedText(x, n)));
      expect(Math.abs(roundFloat(x, n) - x)).toBeLessThanOrEqual(0.5 * 10 ** -n * (1 + 1e-9) + Math.abs(x) * 1e-15);
    },
  );

  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })])('str order is code-point order', (a, b) => {
    const cps = (s: string) => [...s].map((c) => c.codePointAt(0) as number);
    const [x, y] = [cps(a), cps(b)];
    let expected = 0;
    for (let k = 0; k < Math.min(x.length, y.length) && !expected; k++) expected = Math.sign(x[k] - y[k]);
    expected ||= Math.sign(x.length - y.length);
    expect(strCompare(a, b)).toBe(expected);
  });

  test.prop([fc.array(fc.integer({ min: -5, max: 5 }))])('sorted() is a stable sort, also reversed', (xs) => {
    expect(sorted(xs)).toEqual([...xs].sort((a, b) => a - b));
    const keyed = xs.map(
      (x, k) =>
        new Map<string, PyValue>([
          ['k', x],
          ['i', k],
        ]),
    );
    const out = sorted(keyed, { key: (m) => (m as Map<string, PyValue>).get('k') as PyValue, reverse: true });
    const expected = keyed
      .map((m, i) => ({ m, i }))
      .sort((p, q) => (q.m.get('k') as number) - (p.m.get('k') as number) || p.i - q.i);
    expect(out).toEqual(expected.map((e) => e.m));
  });

  test('keyword binding says what CPython 3.11 says', () => {
    const params = [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'limit', optional: true }];
    const bind = (kw: Record<string, PyValue>) => () => bindKwargs('T.f', params, new Map(Object.entries(kw)));
    expect(bind({ a: 1 })).toThrow("T.f() missing 2 required positional arguments: 'b' and 'c'");
    expect(bind({})).toThrow("T.f() missing 3 required positional arguments: 'a', 'b', and 'c'");
    expect(bind({ a: 1, x: 2, b: 1 })).toThrow("T.f() got an unexpected keyword argument 'x'");
    expect(bind({ self: 1 })).toThrow("T.f() got multiple values for argument 'self'");
    expect([...bind({ c: 3, a: 1, b: 2 })().keys()]).toEqual(['c', 'a', 'b']);
    expect(jsonString('é"\n\u2028😀')).toBe('"\\u00e9\\"\\n\\u2028\\ud83d\\ude00"');
  });
});

const python = referenceUnavailable() === null;
describe.skipIf(!python)('the Python world against python3', () => {
  test('float repr, format(x, ".2f") and round(x, 2) of 3,000 doubles (exact ties among them) are Python\'s', () => {
    const xs: number[] = [];
    const rng = fc.sample(fc.double({ noNaN: true, noDefaultInfinity: true }), { numRuns: 2000, seed: 18 });
    xs.push(...rng, ...Array.from({ length: 1000 }, (_, k) => (k - 500) / 8 + (k % 3) / 1000));
    const r = spawnSync(
      'python3',
      ['-c', 'import json,sys\nfor x in json.load(sys.stdin): print(repr(x), format(x, ".2f"), repr(round(x, 2)))'],
      {
        // Each as a float literal (JSON.stringify would write 2.0 as the int 2).
        input: `[${xs.map(floatRepr).join(', ')}]`,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    const lines = r.stdout.trim().split('\n');
    const mismatches = xs
      .map((x, k) => ({
        x,
        ours: `${floatRepr(x)} ${fixedText(x, 2)} ${floatRepr(roundFloat(x, 2))}`,
        python: lines[k],
      }))
      .filter((m) => m.ours !== m.python);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  test("a str for a non-str field: pydantic's string_unicode exactly where the str holds a lone surrogate", () => {
    const kinds = {
      int: F.int,
      float: F.float,
      bool: F.bool,
      date: F.date,
      datetime: F.datetime,
      lit: F.lit('a', 'b'),
    };
    // Strings of any UTF-16 units (lone surrogates among them), and well-formed ones with one inserted.
    const strings = [
      ...fc.sample(fc.string({ unit: 'binary', maxLength: 6 }), { numRuns: 300, seed: 30 }),
      ...fc
        .sample(fc.tuple(fc.string({ maxLength: 4 }), fc.integer({ min: 0xd800, max: 0xdfff })), {
          numRuns: 100,
          seed: 31,
        })
        .map(([s, u]) => `${s}${String.fromCharCode(u)}1`),
      '1',
      '2.0',
      'a',
      '2024-05-01',
    ];
    const ours = strings.map((v) =>
      Object.values(kinds).map((t) => {
        try {
          validateAs(t, v, 'M', ['f']);
          return 'ok';
        } catch (err) {
          return err instanceof ValidationError ? err.errors[0].type : String(err);
        }
      }),
    );
    const script = [
      'import json, sys, datetime, typing, pydantic',
      'ts = [int, float, bool, datetime.date, datetime.datetime, typing.Literal["a", "b"]]',
      'ms = [pydantic.create_model("M", f=(t, ...)) for t in ts]',
      'def kind(m, v):',
      '    try:',
      '        m(f=v)',
      '        return "ok"',
      '    except pydantic.ValidationError as e:',
      '        return e.errors()[0]["type"]',
      'print(json.dumps([[kind(m, v) for m in ms] for v in json.load(sys.stdin)]))',
    ].join('\n');
    // JSON.stringify writes a lone surrogate as its \u escape, which json.load reads back as one.
    const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(strings), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const theirs = JSON.parse(r.stdout) as string[][];
    const differ = strings
      .map((v, k) => ({ v: jsonString(v), ours: ours[k].join(' '), python: theirs[k].join(' ') }))
      .filter((d) => d.ours.includes('string_unicode') !== d.python.includes('string_unicode'));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(theirs.filter((t) => t.includes('string_unicode')).length).toBeGreaterThanOrEqual(100);
  });
});
