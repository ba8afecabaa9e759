import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { type Commission, loadCommission } from '../commission/index.js';
import { newRunId } from '../run/index.js';
import { resolveSandbox } from '../sandbox/index.js';
import { renderedHash, stableJson, writeRendered } from './case-files.js';
import { type Broken, PropertyHarness } from './harness.js';
import { loadProperties } from './load-properties.js';
import type { PropertiesDecl, PropertyReport, PropertyRunOptions, Split } from './types.js';
import { arbitraryFromZod } from './zod-arbitrary.js';

/** Thrown by a failing run's predicate so fast-check records which property broke. */
class PropertyBroken extends Error {
  constructor(readonly broken: Broken) {
    super(`${broken.property}: ${broken.reason}`);
    this.name = 'PropertyBroken';
  }
}

/** The generated value: the case input and the seed of its metamorphic transforms. */
export function generatedArbitrary(decl: PropertiesDecl) {
  return fc.tuple(
    arbitraryFromZod(decl.input, { overrides: decl.arbitraries }),
    fc.integer({ min: 0, max: 0x7fffffff }),
  );
}

/** A fresh non-negative 31-bit seed; printed so any run can be replayed. */
export function freshSeed(): number {
  return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) & 0x7fffffff;
}

/**
 * Runs a delivery on `runs` inputs generated from a commission's `properties.ts` (DESIGN §12), through the same
 * sandbox as held-out cases. On a failure fast-check shrinks the input to a minimal one that still breaks the
 * same property first, and the minimal input is written as a case directory `<cases>/<into>/prop-<property>-
 * <seed>-<hash>/` (input.md, assets/, property.json, truth.json when derivable). The same seed gives the same
 * inputs and the same minimal case.
 */
export async function runProperties(commissionDir: string, options: PropertyRunOptions): Promise<PropertyReport> {
  const commission = await loadCommission(commissionDir);
  const decl = await loadProperties(commission.dir, options.propertiesFile);
  const backend = await resolveSandbox(options.sandbox ?? 'auto');
  const runId = newRunId();
  const harness = new PropertyHarness(commission, decl, backend, path.resolve(options.delivery), runId);
  const seed = options.seed ?? freshSeed();
  const runs = options.runs ?? 100;
  let index = 0;
  let target: string | null = null;
  try {
    const property = fc.asyncProperty(generatedArbitrary(decl), async ([input, metaSeed]) => {
      const broken = await harness.evaluate(input, metaSeed, target === null);
      options.onEvaluated?.({ index: index++, failed: broken?.property ?? null });
      // Shrinking keeps the property that broke first: a smaller input that breaks another one does not count.
      if (broken && (target === null || broken.property === target)) {
        target = broken.property;
        throw new PropertyBroken(broken);
      }
    });
    const details = await fc.check(property, {
      seed,
      numRuns: runs,
      ...(options.path ? { path: options.path } : {}),
    });
    const report: PropertyReport = {
      commission: commission.config.id,
      delivery: path.resolve(options.delivery),
      sandbox: backend.name,
      seed,
      runs: details.numRuns,
      properties: harness.list(),
      failure: null,
    };
    if (!details.failed) return report;
    const err = details.errorInstance;
    if (!(err instanceof PropertyBroken)) throw err instanceof Error ? err : new Error(String(err));
    const [[input, metaSeed]] = details.counterexample!;
    const counterexample = { input, metaSeed };
    const failure = {
      property: err.broken.property,
      title: err.broken.title,
      reason: err.broken.reason,
      seed,
      path: details.counterexamplePath ?? '',
      counterexample,
      ...(err.broken.followUp === undefined ? {} : { followUp: err.broken.followUp }),
      ...(err.broken.expect ? { expect: err.broken.expect } : {}),
      shrinks: details.numShrinks,
      caseDir: null as string | null,
    };
    if (options.write !== false) {
      failure.caseDir = writeFailureCase(commission, decl, options, failure, backend.name);
    }
    report.failure = failure;
    return report;
  } finally {
    harness.close();
    await backend.cleanup(runId).catch(() => 0);
  }
}

/**
 * The directory that receives a written case of `split`: `<casesDir>/<split>` when given, else the commission's own
 * `cases/<split>`, except held-out cases go to `$HELDOUT_CASES/<id>` when that directory exists (DESIGN §6).
 */
export function splitDirFor(commission: Commission, split: Split, casesDir?: string): string {
  if (casesDir) return path.join(path.resolve(casesDir), split);
  const root = process.env.HELDOUT_CASES;
  if (split === 'heldout' && root && existsSync(path.resolve(root, commission.config.id))) {
    return path.resolve(root, commission.config.id);
  }
  return path.join(commission.dir, 'cases', split);
}

function writeFailureCase(
  commission: Commission,
  decl: PropertiesDecl,
  options: PropertyRunOptions,
  failure: {
    property: string;
    title: string;
    reason: string;
    seed: number;
    path: string;
    counterexample: { input: unknown; metaSeed: number };
    followUp?: unknown;
    expect?: Broken['expect'];
    shrinks: number;
  },
  sandbox: string,
): string {
  const files = decl.render(failure.counterexample.input);
  const splitDir = splitDirFor(commission, options.into ?? 'heldout', options.casesDir);
  const dir = path.join(splitDir, `prop-${failure.property}-${failure.seed}-${renderedHash(files)}`);
  rmSync(dir, { recursive: true, force: true });
  writeRendered(dir, files);
  if (decl.truth) writeFileSync(path.join(dir, 'truth.json'), stableJson(decl.truth(failure.counterexample.input)));
  writeFileSync(
    path.join(dir, 'property.json'),
    stableJson({
      schema: 'heldout/property-case@1',
      commission: commission.config.id,
      property: failure.property,
      title: failure.title,
      reason: failure.reason,
      seed: failure.seed,
      path: failure.path,
      shrinks: failure.shrinks,
      delivery: path.resolve(options.delivery),
      sandbox,
      counterexample: failure.counterexample,
      ...(failure.followUp === undefined ? {} : { followUp: failure.followUp }),
      ...(failure.expect ? { expect: failure.expect } : {}),
      // Where the commission lives is left out, so the same failure writes the same bytes wherever it is run.
      replay: `heldout gen property <commission> --delivery <delivery> --seed ${failure.seed} --path ${failure.path}`,
    }),
  );
  return dir;
}
