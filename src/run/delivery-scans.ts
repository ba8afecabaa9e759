import type { Commission } from '../commission/index.js';
import { scanDevStrings } from './dev-strings.js';
import { type HeldoutLeak, scanHeldoutLeak } from './heldout-leak.js';
import type { Prepared } from './prepared-delivery.js';

/** The dev-case strings a delivery embeds, scanned once per commission × delivery (memoised on `prepared`). */
export function devStringsFor(commission: Commission, prepared: Prepared): string[] {
  let found = prepared.devStrings.get(commission.dir);
  if (!found) {
    // a0 is the evaluator's own starter, not a builder's delivery.
    found = prepared.ref.role === 'starter' ? [] : scanDevStrings(prepared.ref.dir, commission);
    prepared.devStrings.set(commission.dir, found);
  }
  return found;
}

/** The held-out material a delivery contains, scanned once per commission × delivery (memoised on `prepared`). */
export function heldoutLeakFor(commission: Commission, prepared: Prepared): HeldoutLeak | null {
  if (!prepared.heldoutLeaks.has(commission.dir)) {
    const leak = prepared.ref.role === 'starter' ? null : scanHeldoutLeak(prepared.ref.dir, commission);
    prepared.heldoutLeaks.set(commission.dir, leak);
  }
  return prepared.heldoutLeaks.get(commission.dir) ?? null;
}
