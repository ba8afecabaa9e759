import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { heldout, repoRoot } from '../helpers/cli.js';

// Bad input to any command: one line naming the thing and what to do, exit 2, never a stack (--debug shows it).
const STACK = /^\s+at .+[:(]\d+:\d+\)?$/m;

describe('CLI errors', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-cli-errors-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const badJson = path.join(tmp, 'bad.json');
  writeFileSync(badJson, '{bad');
  const task = path.join(repoRoot, 'tasks/log-triage');
  const reference = path.join(repoRoot, 'fixtures/deliveries/log-triage-reference');
  const zod3 = path.join(repoRoot, 'fixtures/propgen/zod3-properties.ts');

  const cases: [string[], RegExp][] = [
    [['freeze', 'nope-dir'], /^heldout: freeze: nope-dir: no such directory; name the delivery directory to freeze$/],
    [
      ['run', task, '--delivery', 'nope-dir'],
      /^heldout: run: --delivery nope-dir: no such directory; give the delivery's directory/,
    ],
    [
      ['run', task, '--delivery', reference, '--split', 'both', '--max-gap', 'abc'],
      /^heldout: --max-gap: expected a number \(for example --max-gap 0\), got abc$/,
    ],
    [['run', task, '--delivery', reference, '--trials', '2.5'], /^heldout: --trials: expected a whole number ≥ 1/],
    [['run', task, '--delivery', reference, '--limit', '0'], /^heldout: --limit: expected a whole number ≥ 1/],
    [
      ['run', task, '--delivery', reference, '--case', 'zz*'],
      /^heldout: run: --case zz\* matches no heldout case; the cases are h01-jsonl/,
    ],
    [
      ['run', task, '--delivery', `a=${reference}`, '--delivery', `a=${reference}`],
      /two deliveries are labelled a; name them apart/,
    ],
    [
      ['run', task, '--delivry', reference],
      /^heldout: run: unknown option --delivry \(did you mean --delivery\?\); heldout run --help/,
    ],
    [['run', task, '--delivery'], /^heldout: run: --delivery needs a value; heldout run --help lists the options$/],
    [['valdate', task], /^heldout: unknown command 'valdate' \(did you mean validate\?\)/],
    // The names come from the sandbox registry, so podman is among them; demo refuses as run does, before any case.
    [
      ['demo', '--sandbox', 'bogus'],
      /^heldout: --sandbox: expected auto, docker, podman, process or swarm, got bogus$/,
    ],
    [
      ['image', 'build', '--sandbox', 'process'],
      /^heldout: --sandbox: expected docker or podman \(a backend that runs images\), got process$/,
    ],
    // A two-word command written with a hyphen, or close to one: its spaced name.
    [['gen-property', task], /^heldout: unknown command 'gen-property' \(did you mean gen property\?\)/],
    [['taste-sampel'], /^heldout: unknown command 'taste-sampel' \(did you mean taste sample\?\)/],
    [
      ['dev', 'nope-dir', '--delivery', reference],
      /^heldout: dev: nope-dir: no such directory; name the commission directory$/,
    ],
    [
      ['gen', 'property', task, '--delivery', reference, '--properties', zod3],
      /^heldout: \S+zod3-properties\.ts: input: a zod 3 schema; heldout derives inputs from zod 4 schemas: import \{ z \} from 'zod\/v4'/,
    ],
    [
      ['gen', 'property', task, '--delivery', 'nope-dir'],
      /^heldout: gen property: --delivery nope-dir: no such directory/,
    ],
    [
      ['import', 'agentswe', 'nope-dir', '--out', path.join(tmp, 'x')],
      /^heldout: import agentswe: nope-dir: no such directory/,
    ],
    [
      ['taste', 'coverage', badJson, '--tools', badJson],
      /^heldout: taste coverage: --tools .*bad\.json: not valid JSON \(.*\); fix the file$/,
    ],
    [
      ['taste', 'coverage', badJson, '--tools', 'nope.json'],
      /^heldout: taste coverage: --tools nope\.json: no such file or directory; check the path$/,
    ],
    [['taste', 'sample', '--domain', 'nope-dir'], /^heldout: --domain: .*nope-dir: no tools\.json$/],
    [['init', task], /^heldout: init: .*log-triage exists and is not empty; choose another directory or add --force$/],
    [['validate', 'nope-dir'], /^nope-dir: \(root\): not a directory$/],
  ];

  for (const [args, message] of cases) {
    test(`heldout ${args.map((a) => path.relative(repoRoot, a) || a).join(' ')}`, async () => {
      const r = await heldout(args);
      expect(r.code, r.out).toBe(2);
      expect(r.out).not.toMatch(STACK);
      expect(r.out.trim().split('\n'), r.out).toHaveLength(1);
      expect(r.out.trim()).toMatch(message);
    });
  }

  test('--debug adds the stack to the same line', async () => {
    const r = await heldout(['freeze', 'nope-dir', '--debug']);
    expect(r.code).toBe(2);
    expect(r.out.split('\n')[0]).toBe(
      'heldout: freeze: nope-dir: no such directory; name the delivery directory to freeze',
    );
    expect(r.out).toMatch(STACK);
  });
});
