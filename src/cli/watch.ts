import { existsSync, type FSWatcher, watch } from 'node:fs';
import path from 'node:path';

/** Path segments whose changes never start a new round: dependencies, VCS data, caches, heldout's own records. */
const IGNORED = new Set(['node_modules', '.git', '__pycache__', '.heldout', '.pytest_cache']);

/**
 * Watches directory trees for the development loop (`heldout dev --watch`): `next()` resolves once something
 * changed since the last call and the trees have been quiet for `quietMs` (an editor's save is several events).
 * A change while a round runs is kept, so the next round starts as soon as that one ends.
 */
export class TreeWatch {
  private readonly watchers: FSWatcher[] = [];
  private changed: string | null = null;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    dirs: string[],
    private readonly ignore: string[] = [],
    private readonly quietMs = 300,
  ) {
    for (const dir of dirs) {
      if (!existsSync(dir)) continue;
      this.watchers.push(
        watch(dir, { recursive: true }, (_event, name) => {
          if (name) this.note(path.join(dir, name.toString()));
        }),
      );
    }
  }

  private note(file: string): void {
    if (file.split(path.sep).some((seg) => IGNORED.has(seg))) return;
    if (this.ignore.some((d) => file === d || file.startsWith(`${d}${path.sep}`))) return;
    this.changed = file;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake?.();
    }, this.quietMs);
  }

  /** Resolves with a file that changed, once the trees are quiet again. */
  async next(): Promise<string> {
    while (this.changed === null || this.timer !== null) await new Promise<void>((r) => (this.wake = r));
    const file = this.changed;
    this.changed = null;
    return file;
  }

  close(): void {
    for (const w of this.watchers) w.close();
    if (this.timer) clearTimeout(this.timer);
  }
}
