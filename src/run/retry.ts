import { existsSync, readFileSync } from 'node:fs';
import { RETRY_CLASSES, type RetryClass } from './retry-classes.js';
import type { CaseAttempt, CaseMeta } from './types.js';

/** What `--resume` reruns when no `--retry` is given: only infrastructure losses. */
export const DEFAULT_RETRY: readonly RetryClass[] = ['infra-error'];

/** Reads `a,b,c` (repeatable) into retry classes; throws naming the unknown one and the list when a name is not one. */
export function parseRetryClasses(values: string[]): RetryClass[] {
  const out = new Set<RetryClass>();
  for (const name of values.flatMap((v) => v.split(',')).map((s) => s.trim())) {
    if (!name) continue;
    if (!(RETRY_CLASSES as readonly string[]).includes(name))
      throw new Error(`unknown failure class ${JSON.stringify(name)}; the classes are ${RETRY_CLASSES.join(', ')}`);
    out.add(name as RetryClass);
  }
  if (out.size === 0) throw new Error(`name at least one failure class: ${RETRY_CLASSES.join(', ')}`);
  return [...out];
}

/** The classes a recorded case falls in (none for a passing grade). */
export function classesOf(meta: CaseMeta): RetryClass[] {
  const g = meta.grade;
  const out: RetryClass[] = [];
  if (g.status !== 'graded') out.push(g.status);
  else if (!g.passed || (g.result ?? 0) < meta.commission.minResult) out.push('failed');
  if (g.gate) out.push(g.gate);
  return out;
}

/**
 * Whether a resumed run keeps a case's recorded verdict: a record of the same delivery digest, not refused (a
 * refusal is the evaluator's finding about the tree, not a verdict), in none of the classes to retry.
 */
export function keepsRecord(
  previous: CaseMeta | null,
  digest: string,
  retry: readonly RetryClass[] = DEFAULT_RETRY,
): previous is CaseMeta {
  if (!previous || previous.delivery.digest !== digest || previous.refused) return false;
  return !classesOf(previous).some((c) => retry.includes(c));
}

/** The record of a rerun: the fresh verdict, with the earlier complete attempts of the same delivery kept, oldest first. */
export function withAttempts(fresh: CaseMeta, previous: CaseMeta | null): CaseMeta {
  if (!previous || previous.delivery.digest !== fresh.delivery.digest) return fresh;
  return { ...fresh, attempts: [...(previous.attempts ?? []), attemptOf(previous)] };
}

/** A record's verdict as an attempt or a round keeps it. */
export function attemptOf(meta: CaseMeta): CaseAttempt {
  const g = meta.grade;
  return { runId: meta.runId, status: g.status, gate: g.gate, result: g.result, passed: g.passed, reason: g.reason };
}

/** A case record read back (`--resume`); null when absent or unreadable (a run killed before its atomic rename). */
export function readRecord(file: string): CaseMeta | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as CaseMeta;
  } catch {
    return null;
  }
}
