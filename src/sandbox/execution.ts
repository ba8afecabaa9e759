/** What every backend does once its sandbox has ended: capped output, the exit in the shell convention, the outputs. */
import { readdir } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import type { ExecutionOf } from './protocol.js';

/** Relative paths of the files (and symlinks) under `dir`, sorted; empty directories are not listed. */
export async function listOutputs(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    let dirents: import('node:fs').Dirent[];
    try {
      dirents = await readdir(rel ? join(dir, rel) : dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of dirents) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) await walk(r);
      else out.push(r);
    }
  }
  await walk('');
  return out.sort();
}

/** Keeps the first `cap` bytes written to it and counts (then discards) the rest. */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.cap) return;
    const room = this.cap - this.kept;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Shell convention both backends report: a death by signal n is exit code 128+n, and the signal is named. */
export function exitAndSignal(
  code: number | null,
  signal: NodeJS.Signals | string | null,
): {
  exitCode: number | null;
  signal: string | null;
} {
  const table = osConstants.signals as Record<string, number>;
  if (code === null && signal) return { exitCode: 128 + (table[signal] ?? 0), signal };
  if (code !== null && code > 128 && code <= 128 + 64) {
    const name = Object.keys(table).find((k) => table[k] === code - 128) ?? null;
    return { exitCode: code, signal: signal ?? name };
  }
  return { exitCode: code, signal: signal ?? null };
}

/** The two capped captures of one execution, stdout and stderr, each capped at the spec's `outputBytes`. */
export interface Captured {
  stdout: CappedBuffer;
  stderr: CappedBuffer;
}

/** Fresh captures for one execution (the backend pushes into them as output arrives). */
export function capture(outputBytes: number): Captured {
  return { stdout: new CappedBuffer(outputBytes), stderr: new CappedBuffer(outputBytes) };
}

/** How a sandbox ended, as its backend saw it: the raw status (or signal), and why it was stopped, if it was. */
export interface Ended {
  status: number | null;
  signal: NodeJS.Signals | string | null;
  timedOut: boolean;
  oom: boolean;
  wallMs: number;
}

/**
 * The Execution a backend reports once its sandbox has ended: the exit status in the shell convention
 * (`exitAndSignal`), the capped streams, the output files listed as they are now, and why they were cut, if they were.
 * With `fileBudget` (the output budget its files were capped at, RLIMIT_FSIZE), a command the kernel refused a file
 * past it is past the output budget too (`refusedGrowth`).
 */
export async function endedExecution<Isolation extends string>(
  backend: Isolation,
  ended: Ended,
  captured: Captured,
  outputDir: string,
  weakerIsolation: string[] = [],
  outputLimit: string | null = null,
  fileBudget: number | null = null,
): Promise<ExecutionOf<Isolation>> {
  const { exitCode, signal } = exitAndSignal(ended.status, ended.signal);
  const { stdout, stderr } = captured;
  const refused = fileBudget === null ? null : refusedGrowth(fileBudget, exitCode, signal, stderr.text());
  return {
    backend,
    exitCode,
    signal,
    timedOut: ended.timedOut,
    oom: ended.oom,
    wallMs: ended.wallMs,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    outputLimit: outputLimit ?? refused,
    outputs: await listOutputs(outputDir),
    weakerIsolation,
  };
}

/**
 * Why a command that ran under a file size cap (RLIMIT_FSIZE at the output budget) failed because the kernel refused
 * to grow a file past it, or null: killed by SIGXFSZ, or, where the program ignores that signal (Python does),
 * exited non-zero with EFBIG's "File too large" on stderr. Either way a failure, so the wording can only move a case
 * from `error-exit` to `output-limit`, never to a pass.
 */
export function refusedGrowth(
  budget: number,
  exitCode: number | null,
  signal: string | null,
  stderr: string,
): string | null {
  const killed = signal === 'SIGXFSZ';
  if (!killed && (exitCode === null || exitCode === 0 || !/\bFile too large\b|\[Errno 27\]|\bEFBIG\b/.test(stderr)))
    return null;
  return `a file was to grow past the output budget of ${budget} bytes and the kernel refused it (${killed ? 'SIGXFSZ' : 'EFBIG: File too large'})`;
}
