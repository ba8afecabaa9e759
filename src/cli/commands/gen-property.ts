import { loadCommission } from '../../commission/index.js';
import type { runProperties } from '../../propgen/index.js';
import { expectedSandbox, isSandboxKind, SANDBOX_KINDS } from '../../sandbox/index.js';
import { defineCommand, UsageError } from '../command.js';
import { requireDirectory } from '../errors.js';
import { declareOptions, integerOption, requiredString, stringOption } from '../options.js';

export default defineCommand({
  name: 'gen property',
  summary: 'property-based cases: run a delivery on generated inputs, shrink a failure into a new case (§12)',
  help: `Usage: heldout gen property <commission> --delivery <dir> [--runs n=100] [--seed s] [--path p]
                           [--into dev|heldout] [--out <cases-dir>] [--properties <file>]
                           [--sandbox ${SANDBOX_KINDS.join('|')}] [--json]

Generates case inputs from the commission's properties.ts (a zod schema, a renderer and properties), runs the
delivery on each through the same sandbox as held-out cases and checks the built-in properties (never crashes,
required artifacts parse, passes the rubric when truth is derivable), the declared ones and the metamorphic
relations. On a failure, fast-check shrinks the input to a minimal one breaking the same property, and it is
written as <out>/<into>/prop-<property>-<seed>-<hash>/ (input.md, assets/, property.json, truth.json).
--properties names the declaration (default <commission>/properties.ts). --out defaults to <commission>/cases (held-out: $HELDOUT_CASES/<id> when it exists). --seed and --path replay a
reported failure. --json prints one JSON document: { commission, delivery, sandbox, seed, runs, properties, failure }.

Exit: 0 no property failed, 1 a property failed (minimal case written), 2 usage error or invalid input.`,
  options: declareOptions({
    string: ['delivery', 'runs', 'seed', 'path', 'into', 'out', 'properties', 'sandbox'],
    boolean: ['json'],
  }),
  async run({ values, positionals }) {
    if (positionals.length !== 1) throw new UsageError('gen property: name exactly one commission directory');
    const delivery = requiredString(values, 'delivery', 'gen property', '<dir>');
    requireDirectory(positionals[0]!, 'gen property:', 'name the commission directory');
    requireDirectory(delivery, 'gen property: --delivery', 'give the delivery’s directory');
    const runs = integerOption(values, 'runs', 100, 1);
    let seed: number | undefined;
    if (values.seed !== undefined) {
      seed = Number(values.seed);
      if (!Number.isSafeInteger(seed) || Math.abs(seed) > 0x7fffffff) {
        throw new UsageError(`--seed: expected a 32-bit integer, got ${String(values.seed)}`);
      }
    }
    const into = (values.into ?? 'heldout') as string;
    if (into !== 'dev' && into !== 'heldout') throw new UsageError(`--into: expected dev or heldout, got ${into}`);
    const sandbox = values.sandbox ?? 'auto';
    if (!isSandboxKind(sandbox)) throw new UsageError(`--sandbox: ${expectedSandbox(sandbox)}`);
    if (typeof values.path === 'string' && !/^\d+(:\d+)*$/.test(values.path)) {
      throw new UsageError(`--path: expected fast-check's path like 0:1:1, got ${values.path}`);
    }
    const json = values.json === true;
    // A bad package is refused with every problem before Vitest (and the sandboxes) load.
    await loadCommission(positionals[0]!, { checkModules: true });
    const { PropertiesError, runProperties } = await import('../../propgen/index.js');
    let report: Awaited<ReturnType<typeof runProperties>>;
    try {
      report = await runProperties(positionals[0]!, {
        delivery,
        runs,
        seed,
        path: stringOption(values, 'path'),
        into,
        casesDir: stringOption(values, 'out'),
        propertiesFile: stringOption(values, 'properties'),
        sandbox,
        onEvaluated: json
          ? undefined
          : ({ index }) => {
              if ((index + 1) % 10 === 0) process.stderr.write(`  … ${index + 1} inputs evaluated\n`);
            },
      });
    } catch (err) {
      if (err instanceof PropertiesError) throw new UsageError(err.message);
      throw err;
    }
    if (json) {
      console.log(JSON.stringify(report, null, 2));
      return report.failure ? 1 : 0;
    }
    const f = report.failure;
    if (!f) {
      console.log(
        `ok ${report.commission}: ${report.properties.length} properties held on ${report.runs} generated inputs (seed ${report.seed}, sandbox ${report.sandbox})`,
      );
      return 0;
    }
    console.log(`Property failed: ${f.property} (${f.title})
${f.reason}
after ${report.runs} tests and ${f.shrinks} shrinks
{ seed: ${f.seed}, path: "${f.path}", endOnFailure: true }
Counterexample: ${JSON.stringify(f.counterexample)}
Minimal case written: ${f.caseDir ?? '(not written)'}
Replay: heldout gen property ${positionals[0]} --delivery ${delivery} --seed ${f.seed} --path ${f.path}`);
    return 1;
  },
});
