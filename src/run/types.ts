import type { Family, Split } from '../commission/index.js';
import type { CaseGrade } from '../grading/index.js';
import type { ImageSubstitution, IsolationName, SandboxKind, ServiceRecord } from '../sandbox/index.js';
import type { HeldoutLeak } from './heldout-leak.js';
import type { RetryClass } from './retry-classes.js';

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
  /** With `resume`: the failure classes whose recorded cases run again (default: infra-error only). */
  retry?: RetryClass[];
  /** Identical runs of each case × trial (`--repeat`; default 1): a verdict that changes marks the case flaky. */
  repeat?: number;
  /** Case filter (`heldout run --case/--limit`): the cases it leaves out are declared skipped, so the run is partial. */
  cases?: { match: string[]; limit: number | null };
  /** Image map from → to (`--image-map`, the plugin's `images`), over each commission's own `images` (issue 19). */
  images?: Record<string, string>;
  /** Evaluator-owned services mapped to a URL or command (`--service`, the plugin's `services`; issue 30). */
  services?: Record<string, string>;
  /** The pricing table's file (`--pricing`, the plugin's `pricing`; issue 34), absolute. */
  pricing?: string;
}

/** Stored in each test's `task.meta.heldout`; everything the reporter needs, so `--merge-reports` keeps it. */
export interface CaseMeta {
  runId: string;
  commission: {
    id: string;
    dir: string;
    family: Family;
    title: string;
    minResult: number;
    trials: number;
    /** The requirement obliges the agent to use the runtime model (no calls then flags a hollow runtime). */
    modelRequired: boolean;
    /** tool-agent: the named semantics the τ² domain's tools ran under (`toolAgent.semantics`). */
    tau2Semantics?: string;
  };
  /**
   * `devStrings`: distinctive dev-case strings found in the delivery's source (the overfitting scanner);
   * `heldoutLeak`: held-out canaries and distinctive held-out strings found there (null or absent: none).
   */
  delivery: DeliveryRef & { devStrings: string[]; heldoutLeak?: HeldoutLeak | null };
  split: Split;
  sandbox: IsolationName;
  weakerIsolation: string[];
  grade: CaseGrade;
  /**
   * Set when the delivery changed while this case ran (what changed): the case fails its constraint gate, the test
   * fails with this refusal, the delivery's later cases are refused, and `--resume` runs this case again.
   */
  refused?: string;
  /** Images that ran instead of the ones the commission names (issue 19): results are not comparable then. */
  substitutedImages?: ImageSubstitution[];
  /** The case's services as they ran, their logs beside the case's record (issue 19). */
  services?: ServiceRecord[];
  /** Earlier complete attempts of this case × trial on the same delivery (`--resume --retry`), oldest first. */
  attempts?: CaseAttempt[];
  /** `--repeat n`: the verdict of each identical round, in order; the record's grade is the last one's. */
  repeats?: CaseAttempt[];
}

/** One superseded attempt of a case × trial, as its record kept it when a resumed run ran the case again. */
export interface CaseAttempt {
  runId: string;
  status: CaseGrade['status'];
  gate: CaseGrade['gate'];
  result: number | null;
  passed: boolean;
  reason: string | null;
}

/** Set on each generated test at collection, before it runs: so a filtered or unreached case is still known by name. */
export interface PlannedCase {
  commission: string;
  delivery: string;
  split: Split;
  id: string;
  trial: number;
}
