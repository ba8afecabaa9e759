import type { Split } from '../commission/index.js';
import type { GateThresholds, JunitOptions } from '../report/index.js';
import type { RetryClass } from '../run/index.js';
import type { SandboxKind } from '../sandbox/index.js';
import type { CaseFilter } from './case-filter.js';

/** Options of the heldout plugin and of `heldout run` (DESIGN §9). */
export interface HeldoutOptions {
  /** Commission directories or globs (e.g. `tasks/*`). */
  commissions: string | string[];
  /**
   * The delivery under test: a directory (default `HELDOUT_DELIVERY`), a map label → directory, or a function of
   * the commission id giving such a map (how the demo pairs each commission with its example deliveries).
   */
  delivery?: string | Record<string, string> | ((commissionId: string) => Record<string, string>);
  /** Which cases run: held-out (default), dev, or both (both gives the fidelity gap). */
  split?: Split | Split[];
  /** Trials per case (default: the commission's). */
  trials?: number;
  sandbox?: SandboxKind;
  /**
   * Image map for machines without a registry: `{ "ubuntu:24.04": "heldout/runtime:1" }` runs the second wherever a
   * commission names the first (or builds on it, skipping the build), over each commission's own `images`; the
   * report names every substitution on the rows it affects.
   */
  images?: Record<string, string>;
  /** Evaluator-owned services a commission declares under `external`, by name: a URL or a command (issue 30). */
  services?: Record<string, string>;
  /**
   * A pricing table (issue 34; YAML or JSON, USD per million tokens by model): every model call gets its cost in the
   * ledger, each case and entry its cost in the report, and `budgets.usd` / `budgets.runUsd` can be kept.
   */
  pricing?: string;
  gate?: GateThresholds;
  /**
   * heldout's own `<out>/junit.xml`: valid against junit-10.xsd by default (each case's grading in `<system-out>`);
   * `{ caseProperties: true }` writes it as testcase `<properties>` instead (GitLab, Jenkins' JUnit plugin).
   */
  junit?: JunitOptions;
  /** Report directory (default `reports/<run-id>`). */
  out?: string;
  /** Cases run at once within one commission file (default: the number of cores). */
  concurrency?: number;
  /**
   * A freeze manifest to hold the delivery to (default `<delivery>.freeze.json` beside it, when present); false
   * holds it to nothing (development rounds run changing submissions on purpose).
   */
  freeze?: string | false;
  /** Print the per-commission table when the run ends (default true). */
  table?: boolean;
  /**
   * Progress lines while cases run, a line per finished case at most every 2 s and a heartbeat (done/total,
   * failures, elapsed, ETA): `auto` (default) when stdout is not a terminal (CI) and Vitest is not `--silent`.
   */
  progress?: boolean | 'auto';
  /**
   * Continue an interrupted run into the same `out`: cases already graded for the same delivery digest keep their
   * verdicts, cases lost to infrastructure (and cases never reached) run.
   */
  resume?: boolean;
  /** With `resume`: the failure classes whose recorded cases run again (default: infra-error only; `RETRY_CLASSES`). */
  retry?: RetryClass[];
  /** Run each case × trial this many times over (default 1): a case whose verdict changes is marked `flaky`. */
  repeat?: number;
  /** Cache judge verdicts here (default `.heldout/judge-cache`); false disables it. */
  judgeCache?: string | false;
  /** Run only some cases (ids or `split/id` globs, a limit per split); the report then marks the run partial. */
  cases?: CaseFilter;
}
