import { existsSync, readFileSync } from 'node:fs';
import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { LedgerEntry, TraceEntry } from './types.js';

/** File-name-safe form of a case id: anything but letters, digits, `.`, `_`, `-` becomes `_`. */
export function safeCaseName(caseId: string): string {
  const s = caseId.replace(/[^A-Za-z0-9._-]/g, '_');
  return s === '' || s === '.' || s === '..' ? `_${s}` : s;
}

export function ledgerPath(dir: string, caseId: string, trial: number): string {
  return join(dir, `${safeCaseName(caseId)}.${trial}.jsonl`);
}

export function tracePath(dir: string, caseId: string, trial: number): string {
  return join(dir, `${safeCaseName(caseId)}.${trial}.trace.jsonl`);
}

function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a torn last line (the process died mid-write) is skipped
    }
  }
  return out;
}

/** The ledger of (caseId, trial) in `dir`, in call order; [] when there is none. */
export function readLedger(dir: string, caseId: string, trial: number): LedgerEntry[] {
  return readJsonl<LedgerEntry>(ledgerPath(dir, caseId, trial));
}

/** The trace (request and response bodies) of (caseId, trial) in `dir`; [] when there is none. */
export function readTrace(dir: string, caseId: string, trial: number): TraceEntry[] {
  return readJsonl<TraceEntry>(tracePath(dir, caseId, trial));
}

interface FileState {
  pending: string[];
  waiters: (() => void)[];
  writing: Promise<void> | null;
  handle: FileHandle | null;
  idle: NodeJS.Timeout | null;
}

/**
 * Appends lines to files. Lines for one file are batched: while a write is on its way, later lines gather and go in
 * the next single write, so order holds, lines never interleave, and a busy case costs one write per batch rather
 * than per line. A file stays open while it is busy and closes after a second of quiet (at most `maxOpen` stay open).
 * `append` resolves once its line is written.
 */
export class LineWriter {
  private files = new Map<string, FileState>();
  private dirReady: Promise<unknown>;
  private failures: unknown[] = [];
  private open = 0;

  constructor(
    readonly dir: string,
    private readonly maxOpen = 64,
    private readonly idleCloseMs = 1000,
  ) {
    this.dirReady = mkdir(dir, { recursive: true });
  }

  append(path: string, line: string): Promise<void> {
    let st = this.files.get(path);
    if (!st) {
      st = { pending: [], waiters: [], writing: null, handle: null, idle: null };
      this.files.set(path, st);
    }
    if (st.idle) {
      clearTimeout(st.idle);
      st.idle = null;
    }
    st.pending.push(line + '\n');
    const s = st;
    const done = new Promise<void>((resolve) => s.waiters.push(resolve));
    if (!st.writing) st.writing = this.drain(path, st);
    return done;
  }

  private async drain(path: string, st: FileState) {
    while (st.pending.length > 0) {
      const data = st.pending.length === 1 ? st.pending[0]! : st.pending.join('');
      const waiters = st.waiters;
      st.pending = [];
      st.waiters = [];
      try {
        if (!st.handle) {
          await this.dirReady;
          st.handle = await open(path, 'a');
          this.open++;
        }
        await st.handle.write(data);
      } catch (err) {
        this.failures.push(err);
      }
      for (const w of waiters) w();
    }
    st.writing = null;
    if (this.open > this.maxOpen) await this.closeFile(path, st);
    else {
      st.idle = setTimeout(() => void this.closeFile(path, st), this.idleCloseMs);
      st.idle.unref();
    }
  }

  private async closeFile(path: string, st: FileState) {
    if (st.writing || st.pending.length > 0) return;
    if (st.idle) clearTimeout(st.idle);
    st.idle = null;
    this.files.delete(path);
    const h = st.handle;
    st.handle = null;
    if (h) {
      this.open--;
      await h.close().catch(() => {});
    }
  }

  /** Resolves when every line appended so far is written; rethrows the first write failure since the last flush. */
  async flush(): Promise<void> {
    await this.dirReady;
    for (;;) {
      const busy = [...this.files.values()].map((s) => s.writing).filter((w): w is Promise<void> => w !== null);
      if (busy.length === 0) break;
      await Promise.all(busy);
    }
    if (this.failures.length > 0) {
      const err = this.failures[0];
      this.failures = [];
      throw err;
    }
  }

  /** Flushes, then closes every open file. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await Promise.all([...this.files].map(([p, st]) => this.closeFile(p, st)));
    }
  }
}
