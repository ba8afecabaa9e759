/** One development round (DESIGN §6): admit the submission, run it on the dev cases, record it in the ledger. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCommission } from '../commission/index.js';
import { treeDigest } from '../freeze/index.js';
import type { CommissionSummary } from '../report/index.js';
import { newRunId } from '../run/index.js';
import type { SandboxKind } from '../sandbox/index.js';
import { runHeldout } from '../vitest/index.js';
import { admitRound, recordRound } from './ledger.js';
import { defaultLedgerPath, readLedger, withLedgerLock, writeLedger } from './ledger-file.js';
import { roundEntryFromSummary } from './round.js';
import type { Admission, RecordOutcome } from './types.js';

/** Bad input to a development round (the CLI exits 2 with the message). */
export class DevRoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevRoundError';
  }
}

export interface DevRoundOptions {
  /** The commission directory. */
  commission: string;
  /** The submission (delivery directory). */
  delivery: string;
  /** Round ledger file; default `.heldout/rounds/<commission-id>.json` under the working directory. */
  ledger?: string;
  sandbox?: SandboxKind;
  /** Image map from → to over the commission's own `images` (issue 19). */
  images?: Record<string, string>;
  /** Evaluator-owned services by name (`--service`; issue 30). */
  services?: Record<string, string>;
  /** The pricing table's file (`--pricing`; issue 34). */
  pricing?: string;
  /** Report directory of this round's run; default `.heldout/dev/<commission-id>/<run-id>`. */
  out?: string;
  trials?: number;
  concurrency?: number;
  /** Vitest console reporters (default none: the caller prints the feedback). */
  reporters?: string[];
  now?: () => Date;
}

export type DevRoundResult =
  | { status: 'refused'; commission: string; budget: number; digest: string; ledgerPath: string; reason: string }
  | {
      status: 'ran';
      commission: string;
      budget: number;
      digest: string;
      ledgerPath: string;
      out: string;
      admission: Admission;
      outcome: RecordOutcome;
      summary: CommissionSummary;
      /** Every dev case × trial met the pass rule. */
      allPassed: boolean;
    };

/** The quiet reporter's module, whether heldout runs from `src/` (TypeScript) or from `dist/`. */
function quietReporter(): string {
  const js = fileURLToPath(new URL('./quiet-reporter.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./quiet-reporter.ts', import.meta.url));
}

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Runs one development round. A submission beyond the round budget is refused before anything runs; an identical
 * digest runs again (fresh feedback) but is not counted. Throws DevRoundError on bad input.
 */
export async function runDevRound(options: DevRoundOptions): Promise<DevRoundResult> {
  const now = options.now ?? (() => new Date());
  const commissionDir = path.resolve(options.commission);
  const delivery = path.resolve(options.delivery);
  if (!existsSync(delivery) || !statSync(delivery).isDirectory()) {
    throw new DevRoundError(`--delivery: ${options.delivery} is not a directory`);
  }
  const commission = await loadCommission(commissionDir);
  const id = commission.config.id;
  const budget = commission.config.budgets.devRounds;
  if (commission.cases.dev.length === 0) throw new DevRoundError(`${id}: the commission has no dev cases`);
  const ledgerPath = path.resolve(options.ledger ?? defaultLedgerPath(id));
  const out = path.resolve(options.out ?? path.join('.heldout', 'dev', id, newRunId(now())));
  // Anything written inside the submission would change its digest and fail the run's after-case check.
  for (const [what, p] of [
    ['the round ledger', ledgerPath],
    ['the report directory', out],
  ] as const) {
    if (inside(delivery, p))
      throw new DevRoundError(`${what} ${p} lies inside the delivery ${delivery}; put it outside (--ledger / --out)`);
  }

  let ledger = await readLedger(ledgerPath, id).catch((err: Error) => {
    throw new DevRoundError(err.message);
  });
  const digest = await treeDigest(delivery);
  const admission = admitRound(ledger, digest, budget);
  if (admission.kind === 'refused')
    return { status: 'refused', commission: id, budget, digest, ledgerPath, reason: admission.reason };

  const run = await runHeldout(
    {
      commissions: [commissionDir],
      delivery,
      split: 'dev',
      sandbox: options.sandbox,
      images: options.images,
      ...(options.services ? { services: options.services } : {}),
      ...(options.pricing ? { pricing: options.pricing } : {}),
      out,
      trials: options.trials,
      concurrency: options.concurrency,
      // A development round runs whatever the builder submits now; freezing comes after the rounds.
      freeze: false,
      table: false,
    },
    { reporters: options.reporters?.length ? options.reporters : [quietReporter()] },
  );
  const summary = run.summary?.commissions.find((c) => c.split === 'dev');
  if (!summary || summary.cases.length === 0) {
    throw new Error(`${id}: no dev case ran (run again with --reporter default to see Vitest's errors)`);
  }
  if (summary.delivery.digest !== digest) {
    throw new DevRoundError(
      `the delivery changed while the round was starting (digest ${digest} before, ${summary.delivery.digest} at the run)`,
    );
  }

  const entry = roundEntryFromSummary(summary, digest, now());
  // Re-read under the lock: another round may have been recorded while this one ran.
  const outcome = await withLedgerLock(ledgerPath, async () => {
    ledger = await readLedger(ledgerPath, id);
    const o = recordRound(ledger, entry, budget);
    if (!o.refused) await writeLedger(ledgerPath, o.ledger);
    return o;
  });
  if (outcome.refused)
    return { status: 'refused', commission: id, budget, digest, ledgerPath, reason: outcome.refused };
  return {
    status: 'ran',
    commission: id,
    budget,
    digest,
    ledgerPath,
    out,
    admission,
    outcome,
    summary,
    allPassed: summary.cases.every((k) => k.passed),
  };
}
