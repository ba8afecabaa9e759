/** A package's problems: each one `file: field: message`, all of them thrown at once. */
/** One problem of a package, printed as `file: path.to.field: message`. */
export interface Problem {
  file: string;
  path: string;
  message: string;
}

/** Thrown by `loadCommission` with every problem of the package at once. */
export class CommissionError extends Error {
  constructor(
    readonly dir: string,
    readonly problems: Problem[],
  ) {
    super(`invalid commission ${dir}:\n${problems.map((p) => formatProblem(p)).join('\n')}`);
    this.name = 'CommissionError';
  }
}

/** The file a problem is in; with `dir`, named from there (a problem of the directory itself names the directory). */
export function problemFile(p: Problem, dir?: string): string {
  if (dir === undefined) return p.file || '.';
  return p.file ? `${dir.replace(/\/$/, '')}/${p.file}` : dir;
}

/** `file: field: problem`, the file as `problemFile` names it. */
export function formatProblem(p: Problem, dir?: string): string {
  return `${problemFile(p, dir)}: ${p.path || '(root)'}: ${p.message}`;
}
