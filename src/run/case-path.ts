import path from 'node:path';

/**
 * Where one case × trial's outputs go, relative to the run's report directory; its record (the whole CaseMeta, every
 * evidence text in full) is this path plus `.meta.json`. The one definition of that layout: the session writes there,
 * `--resume` reads it back, and summary.json names the record where it cut a case's evidence to its bounds.
 */
export function caseOutputPath(
  commission: string,
  delivery: string,
  split: string,
  caseId: string,
  trial: number,
): string {
  return path.posix.join('cases', commission, delivery, split, `${caseId}-t${trial}`);
}
