/**
 * Python's number texts and rounding, exact: `repr(float)` (shortest round-trip digits, `1e+16`, `1e-05`, `56.0`),
 * `round(x, n)` and `format(x, '.nf')` (half-even on the exact binary value, as CPython's dtoa does; JavaScript's
 * `toFixed` rounds exact ties away from zero instead).
 */

/** `repr(x)` of a Python float. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Number.POSITIVE_INFINITY) return 'inf';
  if (x === Number.NEGATIVE_INFINITY) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that round-trip, as Python's repr does.
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const neg = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = neg ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** |x| = m · 2^e exactly, m a non-negative integer. */
function decompose(x: number): { m: bigint; e: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { m, e: -1074 };
  m |= 1n << 52n;
  return { m, e: biased - 1075 };
}

/** round-half-even(|x| · 10^n) as an integer, computed on the exact binary value of x. */
function scaledRound(x: number, n: number): bigint {
  const { m, e } = decompose(x);
  let num = m;
  let den = 1n;
  if (n >= 0) num *= 10n ** BigInt(n);
  else den *= 10n ** BigInt(-n);
  if (e >= 0) num <<= BigInt(e);
  else den <<= BigInt(-e);
  let q = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  return q;
}

/** `format(x, '.{n}f')` of a finite float: exactly n decimals, correctly rounded, the sign kept (`-0.00`). */
export function fixedText(x: number, n: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const digits = scaledRound(x, n)
    .toString()
    .padStart(n + 1, '0');
  return n === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -n)}.${digits.slice(-n)}`;
}

/** Python's `round(x, n)` of a float (a float again; x itself when not finite or n beyond a double's digits). */
export function roundFloat(x: number, n: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (n > 323) return x;
  if (n < -308) return 0 * x;
  const q = scaledRound(x, n);
  const v = Number(`${q}e${-n}`);
  return x < 0 ? -v : v;
}

/** Python's `round(x)` of a float: the nearest int, ties to even (a bigint beyond 2^53). */
export function roundToInt(x: number): number | bigint {
  const q = scaledRound(x, 0);
  const v = x < 0 ? -q : q;
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** `float(int)`: the nearest double; undefined when it overflows (Python raises OverflowError). */
export function intToFloat(v: number | bigint): number | undefined {
  if (typeof v === 'number') return v;
  const f = Number(v);
  return Number.isFinite(f) ? f : undefined;
}
