/**
 * Python's `round(x, 2)`: correctly rounded on the exact binary value, ties to even. τ² rounds balances this way,
 * and `toFixed` differs only on exact ties (it rounds them up), which are handled explicitly.
 */
export function pyRound2(x: number): number {
  if (!Number.isFinite(x)) return x;
  const y = x * 100;
  if (y / 100 === x && y - Math.floor(y) === 0.5) {
    const f = Math.floor(y);
    return (f % 2 === 0 ? f : f + 1) / 100;
  }
  return Number(x.toFixed(2));
}

/** Python's `str(float)`: integral values keep a trailing `.0` (τ²'s `calculate` returns `str(round(v, 2))`). */
export function pyFloatStr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x);
}
