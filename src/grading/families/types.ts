import type { CaseRef, Commission, Split } from '../../commission/index.js';
import type { CaseRegistration, Gateway } from '../../gateway/index.js';
import type { Execution, ImageSubstitution, SandboxBackend, SandboxSpec } from '../../sandbox/index.js';
import type { Phase } from '../grading-context.js';
import type { CaseGrade, PatchedTree } from '../types.js';

/** A delivery as a family sees it: its report label and its directory. */
export interface DeliveryDir {
  label: string;
  dir: string;
}

/** What a family prepared for one commission × delivery before its first case; all its cases share it. */
export interface DeliveryStart {
  /** Where the entry command runs: the delivery itself, or editing's patched tree. */
  runDir: string;
  /** False when the delivery cannot run at all (editing: a rejected patch): its cases are graded unexecuted. */
  runnable: boolean;
  /** Handed to the grading of every case (editing: the patched tree, read-only). */
  tree?: PatchedTree;
}

/** What a family's case run is given: the ordinary sandbox spec of the case and the run's backend and gateway. */
export interface CaseRunContext {
  backend: SandboxBackend;
  /** The ordinary sandbox spec of the case; its `command` is the delivery's entry. */
  spec: SandboxSpec;
  commission: Pick<Commission, 'dir' | 'config'>;
  caseRef: CaseRef;
  split: Split;
  trial: number;
  /** The run's gateway (tool-agent: the LLM user simulator goes through its `user` role). */
  gateway: Pick<Gateway, 'socketPath' | 'roles' | 'registerCase'>;
  /** The case's key in the gateway. */
  caseKey: string;
  /** The run's usd budget its evaluator-role registrations (the user simulator) share with the delivery (issue 34). */
  run?: CaseRegistration['run'];
  /** Images the run substituted for the commission's (an image map): harbor replays a Dockerfile not built. */
  substitutedImages?: ImageSubstitution[];
}

/** Either the sandbox's execution (the outputs are graded next) or a grade that stops the case here. */
export type CaseRun = { execution: Execution; grade?: undefined } | { grade: CaseGrade; execution?: undefined };

/** The grading phases a family adds to the common ones, named for where they run. */
export interface FamilyGrading {
  /** In place of the common run gates (harbor: the task's verifier decides, the agent's exit does not). */
  gates?: Phase;
  /** After the run gates held, before any check: may end the case (editing: the patch gate) or set its tree. */
  afterGates?: Phase;
  /** After the Result is computed, before the claims are held against it (editing: the μ_reg suite). */
  afterScore?: Phase;
  /** Last, after the common verdict: the family's own pass rule (editing: μ_new ∧ μ_reg). */
  afterVerdict?: Phase;
}

/**
 * What is particular to one family (DESIGN §1), registered under its name in `FAMILY_STRATEGIES`. Every hook is
 * optional; without it a family runs and is graded as creation is.
 */
export interface FamilyStrategy {
  /** Once per commission × delivery, before its first case (editing: the patch applied to a copy of starter/). */
  onDeliveryStart?(ctx: { commission: Commission; delivery: DeliveryDir; scratch: string }): Promise<DeliveryStart>;
  /** Runs one case × trial in place of the plain sandbox run (tool-agent: the τ² episode under the stdio bridge). */
  runCase?(ctx: CaseRunContext): Promise<CaseRun>;
  /** When a suite is declared: the evaluator's own delivery run beside every candidate (optimization: a0). */
  baseline?(commission: Pick<Commission, 'starterDir'>): DeliveryDir | null;
  /** The commission's own reference solution as a delivery (`heldout run --oracle`; harbor: the task's solution/). */
  oracle?(commission: Pick<Commission, 'dir' | 'config'>): DeliveryDir | null;
  /** The grading phases the family adds (editing: the patch gate, μ_reg, μ_new ∧ μ_reg). */
  grading?: FamilyGrading;
}
