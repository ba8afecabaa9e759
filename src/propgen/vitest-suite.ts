import path from 'node:path';
import { afterAll, describe } from 'vitest';
import { loadCommission } from '../commission/index.js';
import { newRunId } from '../run/index.js';
import { resolveSandbox, type SandboxKind } from '../sandbox/index.js';
import { PropertyHarness } from './harness.js';
import { loadProperties } from './load-properties.js';
import { generatedArbitrary } from './run-properties.js';

export interface PropertyTestOptions {
  numRuns?: number;
  seed?: number;
  sandbox?: SandboxKind;
  /** The declaration file (default `<commission>/properties.ts`). */
  propertiesFile?: string;
  /** Per-test timeout in ms (default 300 000: every input is a sandboxed run). */
  timeout?: number;
}

/**
 * Registers a `describe` with one `test.prop` (@fast-check/vitest) that runs the delivery on generated inputs and
 * fails with the first broken property, so properties run under `npx vitest` too; fast-check prints the seed and
 * path of a failure as usual. Call it at the top level of a test file: `await propertyTests(dir, delivery, opts)`.
 */
export async function propertyTests(
  commissionDir: string,
  deliveryDir: string,
  options: PropertyTestOptions = {},
): Promise<void> {
  // Imported here, not at the top: on import @fast-check/vitest walks every chain of Vitest's `test` API (≈ 2 s of CPU
  // and ≈ 400 MB on Vitest 4), which every process importing heldout/vitest (the main process of `heldout run`) paid.
  const { test } = await import('@fast-check/vitest');
  const commission = await loadCommission(commissionDir);
  const decl = await loadProperties(commission.dir, options.propertiesFile);
  const backend = await resolveSandbox(options.sandbox ?? 'auto');
  const runId = newRunId();
  const harness = new PropertyHarness(commission, decl, backend, path.resolve(deliveryDir), runId);
  let target: string | null = null;
  describe(`${commission.config.id} properties: ${path.basename(path.resolve(deliveryDir))}`, () => {
    afterAll(async () => {
      harness.close();
      await backend.cleanup(runId).catch(() => 0);
    });
    test.prop([generatedArbitrary(decl)], {
      numRuns: options.numRuns ?? 100,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    })(
      `${harness.list().length} properties hold on generated cases`,
      async ([input, metaSeed]) => {
        const broken = await harness.evaluate(input, metaSeed, target === null);
        // As in `runProperties`: shrinking keeps the property that broke first.
        if (broken && (target === null || broken.property === target)) {
          target = broken.property;
          throw new Error(`property ${broken.property} (${broken.title}) failed: ${broken.reason}`);
        }
      },
      options.timeout ?? 300_000,
    );
  });
}
