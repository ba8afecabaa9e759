// The loader fuzzed (issue 17, item 10): fast-check over packages with byte flips, truncation, type swaps, links
// (out, dangling, loops, in), FIFOs, devices, `..` paths, YAML aliases, deep nesting and oversized files. Every
// load ends (no hang), with a package or a CommissionError (no raw exception) whose every problem is one
// `file: field: problem` line; a FIFO, device or link out of the package where the loader reads is always refused,
// and a `..` path always names its field. `npm test` runs a few hundred packages; the nightly-sized run is
// `HELDOUT_LOADER_FUZZ_RUNS=10000 npx vitest run test/commission/loader-fuzz.test.ts`.
import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { hostilePackage, type Mutation, mustRefuse, mutation } from './hostile-package.js';

const RUNS = Number(process.env.HELDOUT_LOADER_FUZZ_RUNS ?? 300);
/**
 * A load of these small packages takes milliseconds; one that has not answered in this long is hung, not slow,
 * however busy the machine is.
 */
const HUNG_MS = 120_000;

type Answer =
  | { kind: 'ok' }
  | { kind: 'problems'; problems: { file: string; path: string; message: string }[]; lines: string[] }
  | { kind: 'raw'; error: string }
  | { kind: 'hung' };

let child: ChildProcess;
let answer: ((a: Answer) => void) | null = null;

function startChild(): Promise<void> {
  child = fork(path.join(import.meta.dirname, 'load-child.mjs'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve) => {
    child.on('message', (m: Answer | { kind: 'ready' }) => {
      if (m.kind === 'ready') resolve();
      else answer?.(m);
    });
  });
}

/** Loads `dir` in the child; a hang ends the child (ours) and starts a fresh one. */
async function load(dir: string): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const got = await new Promise<Answer>((resolve) => {
    answer = resolve;
    timer = setTimeout(() => resolve({ kind: 'hung' }), HUNG_MS);
    child.send({ dir });
  });
  clearTimeout(timer);
  answer = null;
  if (got.kind === 'hung') {
    child.kill('SIGKILL');
    await startChild();
  }
  return got;
}

beforeAll(startChild);
afterAll(() => {
  child?.kill();
});

/** One problem line: a file (or the package), a field (or `(root)`), a message — each on one line, none empty. */
const LINE = /^[^\n]+: [^\n]+: [^\n]+$/;

// No deadline for the whole: its length follows RUNS, and each load has its own hang deadline (HUNG_MS) above.
test(`${RUNS} hostile packages: 0 raw exceptions, 0 hangs, every refusal a file: field: problem line`, {
  timeout: 0,
}, async () => {
  const tally = { loaded: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), async (mutations: Mutation[]) => {
      const { dir, dotdotFields } = hostilePackage(mutations);
      try {
        const hostile = mustRefuse(dir);
        // A `..` path counts unless its file was damaged too (truncated away, flipped, never got to the schema).
        const damaged = new Set(mutations.flatMap((m) => ('file' in m ? [m.file] : 'path' in m ? [m.path] : [])));
        const dotdot = dotdotFields.filter((f) => !damaged.has(f.file));
        const got = await load(dir);
        expect(got.kind, JSON.stringify(got)).not.toBe('hung');
        expect(got.kind, JSON.stringify(got)).not.toBe('raw');
        if (got.kind === 'ok') {
          tally.loaded++;
          expect(hostile, 'loaded a package the loader must refuse').toBeNull();
          expect(dotdot, 'loaded a package with a .. path').toEqual([]);
          return;
        }
        if (got.kind !== 'problems') return;
        tally.refused++;
        expect(got.problems.length).toBeGreaterThan(0);
        for (const [i, p] of got.problems.entries()) {
          expect(got.lines[i]).toMatch(LINE);
          expect(p.message).not.toMatch(/^the loader failed/);
          expect(typeof p.file === 'string' && typeof p.path === 'string').toBe(true);
        }
        // A `..` path is named by its field.
        for (const f of dotdot) {
          expect(
            got.problems.some((p) => p.file === f.file && p.path === f.field),
            JSON.stringify(got.problems),
          ).toBe(true);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    {
      numRuns: RUNS,
      // Found by a CI run: a null dimension (rubric.yaml cut inside its list) reached the cross-field checks.
      examples: [
        [
          [
            { kind: 'truncate', file: 'rubric.yaml', at: 15 },
            { kind: 'swap', path: 'commission.yaml', to: 'dir' },
          ] as Mutation[],
        ],
      ],
    },
  );
  // The mutations are hostile, but not every one breaks the package (a byte flip inside a title).
  expect(tally.refused).toBeGreaterThan(0);
});
