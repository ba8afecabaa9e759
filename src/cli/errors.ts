import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CommissionError, formatProblem } from '../commission/index.js';
import { UsageError } from './command.js';

// How a command's failures reach the terminal: one sentence naming the thing and what to do, never a stack (the
// stack is for `--debug`). Usage errors are the user's to fix; anything else is told apart as heldout's own fault.

const FS_CODES: Record<string, string> = {
  ENOENT: 'no such file or directory; check the path',
  ENOTDIR: 'a part of the path is not a directory; check the path',
  EISDIR: 'is a directory where a file is needed; name the file',
  EACCES: 'permission denied; check its permissions',
  EPERM: 'operation not permitted; check its permissions',
  EEXIST: 'already exists; remove it or choose another path',
  ENOSPC: 'no space left on the device; free some space',
  ELOOP: 'too many symbolic links; check the path',
};

/**
 * One line for an error: a usage error's message, a file-system error by its path, else the first line (an invalid
 * commission: one line per problem).
 */
export function describeError(err: unknown, command: string | null): string {
  const where = command ? `heldout ${command}` : 'heldout';
  if (err instanceof UsageError) return `heldout: ${err.message}`;
  // An invalid package: every problem as `file: field: problem`, as `heldout validate` prints them.
  if (err instanceof CommissionError) {
    const rel = path.relative(process.cwd(), err.dir);
    const dir = rel === '' ? '.' : rel.startsWith('..') ? err.dir : rel;
    return err.problems.map((p) => formatProblem(p, dir)).join('\n');
  }
  const e = err as NodeJS.ErrnoException | undefined;
  if (e && typeof e.code === 'string' && FS_CODES[e.code] && typeof e.path === 'string')
    return `${where}: ${e.path}: ${FS_CODES[e.code]}`;
  const first =
    String(e?.message ?? err)
      .split('\n')[0]!
      .trim() || String(err);
  return `${where}: ${first} (rerun with --debug for the stack)`;
}

/** A directory the command needs: a UsageError naming the option (or argument) when it is not one. */
export function requireDirectory(dir: string, what: string, hint: string): string {
  if (!existsSync(dir)) throw new UsageError(`${what} ${dir}: no such directory; ${hint}`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`${what} ${dir}: not a directory; ${hint}`);
  return dir;
}

/** What went wrong reading an input file, for `<option> <file>: <this>`: a missing file, broken JSON, or the message. */
export function fileProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' && FS_CODES[e.code]) return FS_CODES[e.code]!;
  if (err instanceof SyntaxError) return `not valid JSON (${err.message}); fix the file`;
  return String(e?.message ?? err).split('\n')[0]!;
}
