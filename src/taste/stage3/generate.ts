import { loadDomain, type Tau2Domain, type Tau2Task } from '../../tau2/index.js';
import { clusterStage } from '../cluster.js';
import { coverageMetrics } from '../coverage.js';
import type { KMedoidsMethod } from '../kmedoids.js';
import { Rng } from '../prng.js';
import { seqKey, trainSampler } from '../sampler.js';
import type { CoverageMetrics, Validator } from '../types.js';
import { ruleValidator } from '../validators/rule-validator.js';
import { addDecoys, type Decoy, decoysPreserveGold } from './decoys.js';
import { hintedVerifier, type ModelConfig } from './hinted-verifier.js';
import { instantiateSequence } from './instantiate.js';
import { llmAdversarialRewrite, llmScenario } from './llm.js';
import { measuresNothing, scriptedVerifier, type TaskValidation, type Verifier, validateTask } from './validate.js';

export interface GenerateOptions {
  /** K for stage 2; default: the domain's number of original tasks. */
  k?: number;
  seed?: number | string;
  /** Stage-1 training attempts (default 3000) and stage-2 pool size (default 2000). */
  attempts?: number;
  pool?: number;
  /** Generator model (LLM scenario and rewrite, hinted verifier); undefined = offline. */
  model?: ModelConfig;
  maxRetries?: number;
  /** Stage-2 k-medoids algorithm (default: the assignment/update alternation of DESIGN §11). */
  method?: KMedoidsMethod;
}

/** What happened to one medoid. */
export interface GeneratedEntry {
  sequence: string[];
  id: string | null;
  status: 'generated' | 'unfit' | 'invalid';
  reason?: string;
  validation?: TaskValidation;
  decoys: Decoy[];
  /** The task kept its evolution (decoys and/or rewrite); false = the base task was kept. */
  evolved: boolean;
  llm: { scenario: boolean; rewrite: boolean };
}

export interface CoverageComparison {
  generated: CoverageMetrics;
  original: CoverageMetrics;
  /** generated / original (null when the original figure is 0 or null). */
  ratios: { meanPairwiseWed: number | null; trigramTtr: number | null; entropy: number | null };
  /** The goals set for stage 3 (issue 9; DESIGN §11's reference figures are +124 %, +111 %, +35 %): WED and trigram TTR at least doubled, entropy +30 %. */
  goals: { meanPairwiseWed: boolean; trigramTtr: boolean; entropy: boolean };
}

export interface GenerateResult {
  domain: string;
  seed: number | string;
  k: number;
  medoids: number;
  tasks: Tau2Task[];
  entries: GeneratedEntry[];
  coverage: CoverageComparison;
  /**
   * Rule-plausible sequences stage 2 passed over (medoids or replacement candidates) because no entities fit them, or
   * because a do-nothing agent passes the task made of them (`measuresNothing`).
   */
  notInstantiable: { sequence: string[]; reason: string }[];
}

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

/** Compares the coverage of generated gold sequences to the original ones (pure). */
export function compareCoverage(
  generated: string[][],
  original: string[][],
  tools: readonly { name: string; type: string }[],
): CoverageComparison {
  const g = coverageMetrics(generated, tools);
  const o = coverageMetrics(original, tools);
  const ratios = {
    meanPairwiseWed: ratio(g.meanPairwiseWed, o.meanPairwiseWed),
    trigramTtr: ratio(g.ngrams['3'].ttr, o.ngrams['3'].ttr),
    entropy: ratio(g.entropy, o.entropy),
  };
  return {
    generated: g,
    original: o,
    ratios,
    goals: {
      meanPairwiseWed: (ratios.meanPairwiseWed ?? 0) >= 2,
      trigramTtr: (ratios.trigramTtr ?? 0) >= 2,
      entropy: (ratios.entropy ?? 0) >= 1.3,
    },
  };
}

/**
 * The stage-2 medoid check of `generateTasks`: plausible for `validator`, instantiable on the domain database
 * (`instantiateSequence` finds entities so that every call executes), and the task made of it measures something. A
 * medoid that fails is then replaced, exactly like an implausible one, by the nearest member of its cluster that
 * passes (DESIGN §11), instead of being lost in stage 3. `rejected` keeps, per sequence, why it failed.
 */
export function executableValidator(
  validator: Validator,
  domain: Tau2Domain,
  options: { seed?: number | string; maxRetries?: number } = {},
): Validator & {
  rejected: Map<string, { sequence: string[]; reason: string }>;
  instantiated: Map<string, Tau2Task>;
} {
  const rejected = new Map<string, { sequence: string[]; reason: string }>();
  // Kept so stage 3 does not walk a medoid's sequence a second time (see `synthesizeTask`'s `instantiated`).
  const instantiated = new Map<string, Tau2Task>();
  return {
    rejected,
    instantiated,
    async validate(seq) {
      const v = await validator.validate(seq);
      if (!v.plausible) return v;
      const made = instantiateSequence(domain, seq, { seed: options.seed, maxRetries: options.maxRetries });
      // A task a do-nothing agent passes is replaced like an uninstantiable medoid, never kept for stage 3.
      const nothing = made.ok ? await measuresNothing(domain, made.task) : undefined;
      if (made.ok && nothing) {
        rejected.set(seqKey(seq), { sequence: seq, reason: nothing });
        return { plausible: false, problematicIndices: [seq.length - 1], reason: `measures nothing: ${nothing}` };
      }
      if (made.ok) {
        instantiated.set(seqKey(seq), made.task);
        return v;
      }
      rejected.set(seqKey(seq), { sequence: seq, reason: made.reason });
      const at = Number(/\(call (\d+)\)/.exec(made.reason)?.[1] ?? seq.length) - 1;
      return { plausible: false, problematicIndices: [at], reason: `not instantiable: ${made.reason}` };
    },
  };
}

/** An instantiated task under another id: the id names the task and its gold actions, nothing else. */
function withId(task: Tau2Task, id: string): Tau2Task {
  const copy: Tau2Task = structuredClone(task);
  copy.id = id;
  for (const [k, a] of (copy.evaluation_criteria?.actions ?? []).entries()) a.action_id = `${id}_${k}`;
  return copy;
}

/**
 * Stage 3 for one medoid: instantiate (programmatic, then the LLM scenario when a model is set), validate, evolve
 * (decoys proven not to change the gold final state, then the LLM rewrite), re-validate; keeps the base task when
 * the evolution fails.
 */
export async function synthesizeTask(
  domain: Tau2Domain,
  sequence: string[],
  id: string,
  options: {
    seed?: number | string;
    model?: ModelConfig;
    verifier?: Verifier;
    maxRetries?: number;
    /** The sequence already instantiated with the same seed and retries (stage 2's check), under any id. */
    instantiated?: Tau2Task;
  } = {},
): Promise<{ task: Tau2Task | null; entry: GeneratedEntry }> {
  const entry: GeneratedEntry = {
    sequence,
    id: null,
    status: 'unfit',
    decoys: [],
    evolved: false,
    llm: { scenario: false, rewrite: false },
  };
  const made = options.instantiated
    ? { ok: true as const, task: withId(options.instantiated, id) }
    : instantiateSequence(domain, sequence, { seed: options.seed, id, maxRetries: options.maxRetries });
  if (!made.ok) return { task: null, entry: { ...entry, reason: made.reason } };
  let task = made.task;
  if (options.model) {
    const richer = await llmScenario(options.model, task, domain.policy);
    if (richer) {
      task = richer;
      entry.llm.scenario = true;
    }
  }
  const verifier = options.verifier ?? scriptedVerifier;
  const validation = await validateTask(domain, task, { verifier });
  if (!validation.ok)
    return { task: null, entry: { ...entry, status: 'invalid', validation, reason: validation.failed?.reason } };

  let evolved = task;
  const { task: withDecoys, decoys } = addDecoys(domain, task, options.seed);
  if (decoys.length && decoysPreserveGold(domain, task, withDecoys, decoys).ok) {
    const again = await validateTask(domain, withDecoys, { verifier, skipRules: true });
    if (again.ok) {
      evolved = withDecoys;
      entry.decoys = decoys;
    }
  }
  if (options.model) {
    const rewritten = await llmAdversarialRewrite(options.model, domain, evolved);
    if (rewritten && (await validateTask(domain, rewritten, { verifier, skipRules: true })).ok) {
      evolved = rewritten;
      entry.llm.rewrite = true;
    }
  }
  return {
    task: evolved,
    entry: { ...entry, id, status: 'generated', validation, evolved: evolved !== task },
  };
}

/**
 * `heldout taste generate`: stage 1 (rule validator, trained sampler), stage 2 (`clusterStage`), then one task per
 * usable cluster through `synthesizeTask`; the result compares coverage with the domain's original gold set.
 * Deterministic for a seed when no model is configured.
 */
export async function generateTasks(domainDir: string, options: GenerateOptions = {}): Promise<GenerateResult> {
  const domain = loadDomain(domainDir);
  const seed = options.seed ?? 0;
  const validator = ruleValidator(domain);
  const k = options.k ?? domain.gold.length;
  const train = await trainSampler(
    domain.tools.map((t) => t.name),
    domain.gold.map((g) => g.tools),
    validator,
    { seed, attempts: options.attempts ?? 3000 },
  );
  // Stage 1 learns from the rule validator alone; stage 2 also asks that a medoid can be instantiated.
  const medoidCheck = executableValidator(validator, domain, { seed, maxRetries: options.maxRetries });
  const clusters = await clusterStage({
    sampler: train.sampler,
    tools: domain.tools,
    validator: medoidCheck,
    k,
    poolSize: options.pool ?? 2000,
    rng: new Rng(`${seed}:cluster`),
    exclude: new Set(domain.gold.map((g) => seqKey(g.tools))),
    method: options.method,
  });
  const verifier = options.model ? hintedVerifier(options.model, options.model, 2, seed) : scriptedVerifier;
  const tasks: Tau2Task[] = [];
  const entries: GeneratedEntry[] = [];
  for (const m of clusters.medoids) {
    const id = `taste_${tasks.length}`;
    const { task, entry } = await synthesizeTask(domain, m.sequence, id, {
      seed,
      model: options.model,
      verifier,
      maxRetries: options.maxRetries,
      instantiated: medoidCheck.instantiated.get(seqKey(m.sequence)),
    });
    entries.push(entry);
    if (task) tasks.push(task);
  }
  const coverage = compareCoverage(
    tasks.map((t) => (t.evaluation_criteria?.actions ?? []).map((a) => a.name)),
    domain.gold.map((g) => g.tools),
    domain.tools,
  );
  return {
    domain: domain.name,
    seed,
    k,
    medoids: clusters.medoids.length,
    tasks,
    entries,
    coverage,
    notInstantiable: [...medoidCheck.rejected.values()],
  };
}
