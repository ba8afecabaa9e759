import { CASE_STATUSES, GATE_CATEGORIES } from '../grading/index.js';

/**
 * The failure classes `--resume --retry` accepts: the case statuses that are not a plain grade, `failed` (graded
 * below the pass rule) and every gate category. Derived from the grading types, so a new status or gate is a class.
 */
export const RETRY_CLASSES = [...CASE_STATUSES.filter((s) => s !== 'graded'), 'failed', ...GATE_CATEGORIES] as const;
export type RetryClass = Exclude<(typeof RETRY_CLASSES)[number], 'graded'>;
