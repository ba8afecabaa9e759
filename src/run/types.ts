import type { Split } from '../commission/index.js';
import type { CaseGrade } from '../grading/types.js';
import type { SandboxKind } from '../sandbox/types.js';

/** A delivery under test, resolved and digested before any case runs. */
export interface DeliveryRef {
  /** Name shown in reports, e.g. `reference`, `overfit`, or `a0` for an optimization starter. */
  label: string;
  dir: string;
  /** `sha256:…` of the tree (DESIGN §6), taken before the first case. */
  digest: string;
  /** True when a freeze manifest vouched for `digest`. */
  frozen: boolean;
  /** Optimization: `starter` is a0, run on the same instances as each candidate. */
  role: 'candidate' | 'starter';
}

/** Gate thresholds that turn a run red (DESIGN §9). */
export interface GateThresholds {
  minResult?: number;
  minPassHatK?: number;
  /** Needs both splits: an entry without a fidelity gap (no scored dev or held-out cases) fails it. */
  maxGap?: number;
}

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
  gate?: GateThresholds;
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
   * Continue an interrupted run into the same `out`: cases already graded for the same delivery digest keep their
   * verdicts, cases lost to infrastructure (and cases never reached) run.
   */
  resume?: boolean;
  /** Cache judge verdicts here (default `.heldout/judge-cache`); false disables it. */
  judgeCache?: string | false;
}

/** What the plugin hands the generated suite of one commission (plain JSON, resolved in the main process). */
export interface SuitePlan {
  runId: string;
  commissionDir: string;
  deliveries: { label: string; dir: string; freeze: string | null; role: 'candidate' | 'starter' }[];
  splits: Split[];
  trials: number | null;
  sandbox: SandboxKind;
  out: string;
  concurrency: number;
  judgeCache: string | false;
  resume: boolean;
}

/** Stored in each test's `task.meta.heldout`; everything the reporter needs, so `--merge-reports` keeps it. */
export interface CaseMeta {
  runId: string;
  commission: {
    id: string;
    dir: string;
    family: string;
    title: string;
    minResult: number;
    trials: number;
    /** The requirement obliges the agent to use the runtime model (no calls then flags a hollow runtime). */
    modelRequired: boolean;
  };
  /** `devStrings`: distinctive dev-case strings found in the delivery's source (the overfitting scanner). */
  delivery: DeliveryRef & { devStrings: string[] };
  split: Split;
  sandbox: 'docker' | 'process';
  weakerIsolation: string[];
  grade: CaseGrade;
}
