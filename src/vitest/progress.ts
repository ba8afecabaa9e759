/** Non-TTY progress for long runs (CI logs): a line per finished case, at most one every few seconds, and a heartbeat. */

export interface ProgressCounts {
  done: number;
  total: number;
  failed: number;
  infra: number;
  elapsedMs: number;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/**
 * One progress line: `heldout: 12/77 cases · 3 failed · 0 infra · 1m02s elapsed · ETA 5m30s`. The ETA assumes the
 * cases left take as long on average as those done (none before the first case ends). Pure.
 */
export function progressLine(p: ProgressCounts): string {
  const parts = [`heldout: ${p.done}/${p.total} cases`, `${p.failed} failed`];
  if (p.infra > 0) parts.push(`${p.infra} infra`);
  parts.push(`${duration(p.elapsedMs)} elapsed`);
  if (p.done > 0 && p.done < p.total) parts.push(`ETA ${duration((p.elapsedMs / p.done) * (p.total - p.done))}`);
  return parts.join(' · ');
}

export interface ProgressOptions {
  write: (line: string) => void;
  now?: () => number;
  /** Fewest milliseconds between two lines for finished cases (default 2,000). */
  everyMs?: number;
  /** A line after this long without one, while cases still run (default 30,000); 0 for none. */
  heartbeatMs?: number;
}

/**
 * Counts planned and finished cases and prints progress lines: on a finished case when `everyMs` has passed since
 * the last line (so a slow run prints every case, a fast one every few seconds), on the last case, and a heartbeat
 * while nothing finishes. The heartbeat timer never keeps the process alive.
 */
export class Progress {
  private readonly counts = { done: 0, total: 0, failed: 0, infra: 0 };
  /** Per test file: its estimate before collection, then its collected count. */
  private readonly files = new Map<string, number>();
  private readonly start: number;
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: ProgressOptions) {
    this.start = this.now();
    const beat = options.heartbeatMs ?? 30_000;
    if (beat > 0) {
      this.timer = setInterval(() => {
        if (this.counts.total > this.counts.done && this.now() - this.last >= beat) this.print();
      }, beat);
      this.timer.unref();
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Executions a file will run by its plan, before it is collected (replaced by `planned` when it is). */
  expect(file: string, n: number): void {
    this.planned(n, file);
  }

  /** Cases a collected file declared that will run; replaces the file's estimate. */
  planned(n: number, file = ''): void {
    this.counts.total += n - (this.files.get(file) ?? 0);
    this.files.set(file, n);
  }

  /** A case finished: failed (missed its pass rule, or threw) and whether the infrastructure lost it. */
  finished(failed: boolean, infra: boolean): void {
    this.counts.done++;
    if (failed) this.counts.failed++;
    if (infra) this.counts.infra++;
    const last = this.counts.done >= this.counts.total;
    if (last || this.now() - this.last >= (this.options.everyMs ?? 2000)) this.print();
  }

  private print(): void {
    this.last = this.now();
    this.options.write(progressLine({ ...this.counts, elapsedMs: this.last - this.start }));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
