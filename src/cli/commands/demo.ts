import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expectedSandbox, isSandboxKind, SANDBOX_KINDS } from '../../sandbox/index.js';
import { QuietReporter, runHeldout } from '../../vitest/index.js';
import { defineCommand, UsageError } from '../command.js';
import { declareOptions, stringOption } from '../options.js';

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));

export default defineCommand({
  name: 'demo',
  summary: 'run every example commission against its example deliveries, both splits, into reports/demo/',
  help: `Usage: heldout demo [--tasks <dir>] [--deliveries <dir>] [--out <dir>] [--sandbox ${SANDBOX_KINDS.join('|')}]

Runs every commission in tasks/ against each of its example deliveries in fixtures/deliveries/<commission>-<kind>/
(reference, overfit, hollow, …) on the dev and the held-out cases, writes one report to reports/demo/ and prints
the table. No model is needed. Some deliveries are built to fail (that is what the demo shows): the exit code is 0
when the run completed and the report was written, 1 when cases were lost to infrastructure errors.`,
  options: declareOptions({ string: ['tasks', 'deliveries', 'out', 'sandbox'] }),
  async run({ values }) {
    const sandbox = stringOption(values, 'sandbox') ?? 'auto';
    if (!isSandboxKind(sandbox)) throw new UsageError(`--sandbox: ${expectedSandbox(sandbox)}`);
    const tasks = path.resolve(stringOption(values, 'tasks') ?? path.join(packageRoot, 'tasks'));
    const deliveries = path.resolve(
      stringOption(values, 'deliveries') ?? path.join(packageRoot, 'fixtures/deliveries'),
    );
    const out = path.resolve(stringOption(values, 'out') ?? 'reports/demo');
    const available = existsSync(deliveries) ? readdirSync(deliveries).sort() : [];
    const result = await runHeldout(
      {
        commissions: path.join(tasks, '*'),
        delivery: (id) =>
          Object.fromEntries(
            available
              .filter((name) => name.startsWith(`${id}-`))
              .map((name) => [name.slice(id.length + 1), path.join(deliveries, name)]),
          ),
        split: ['dev', 'heldout'],
        sandbox,
        out,
        judgeCache: false,
      },
      { reporters: [new QuietReporter()] },
    );
    if (!result.summary) return 1;
    const infra = result.summary.commissions.reduce((s, c) => s + c.failureModes.infraError, 0);
    return infra > 0 ? 1 : 0;
  },
});
