import { Rng } from './prng.js';
import type { Validator } from './types.js';

/** DESIGN §11 stage-1 constants. */
export const SAMPLER_DEFAULTS = {
  lambda0: 0.1,
  lambdaNeg: 1,
  t0: 3.0,
  tauDecay: 1500,
  length: { loc: 7, scale: 5, alpha: 2, min: 1, max: 15 },
  attempts: 3000,
} as const;

/** Token ids: 0 = BOS, 1 = EOS, 2.. = tools in the given order. EOS is in the vocabulary but never emitted. */
export const BOS = 0;
export const EOS = 1;

/** Serializable sampler state (sparse count lists `[u, v, w, count]` over token ids). */
export interface SamplerTables {
  format: 'heldout/taste-trigram@1';
  tokens: string[];
  lambda0: number;
  lambdaNeg: number;
  cPlus: [number, number, number, number][];
  cMinus: [number, number, number, number][];
}

/**
 * The adaptive contrastive trigram model. Sequences have exactly the target length drawn from the length law:
 * generation samples only tool tokens, so EOS (kept as a token for table compatibility) never enters a trigram and
 * is never emitted; BOS pads the start twice.
 */
export class ContrastiveSampler {
  readonly tokens: string[];
  readonly V: number;
  readonly nTools: number;
  readonly cPlus: Float64Array;
  readonly cMinus: Float64Array;
  lambda0: number = SAMPLER_DEFAULTS.lambda0;
  lambdaNeg: number = SAMPLER_DEFAULTS.lambdaNeg;
  private readonly ids: Map<string, number>;
  private readonly weights: Float64Array;

  constructor(toolNames: readonly string[]) {
    this.tokens = ['<BOS>', '<EOS>', ...toolNames];
    this.V = this.tokens.length;
    this.nTools = toolNames.length;
    this.ids = new Map(toolNames.map((t, i) => [t, i + 2]));
    this.cPlus = new Float64Array(this.V ** 3);
    this.cMinus = new Float64Array(this.V ** 3);
    this.weights = new Float64Array(this.nTools);
  }

  private id(name: string): number {
    const i = this.ids.get(name);
    if (i === undefined) throw new Error(`sampler: unknown tool ${name}`);
    return i;
  }

  /** Trigram ids of the BOS-padded sequence: entry i is the window ending at call i. */
  windows(seq: readonly string[]): number[] {
    const V = this.V;
    let u = BOS;
    let v = BOS;
    return seq.map((name) => {
      const w = this.id(name);
      const k = (u * V + v) * V + w;
      u = v;
      v = w;
      return k;
    });
  }

  /** Plausible → every window into C+; implausible → only windows ending at problematic indices into C−. */
  ingest(seq: readonly string[], plausible: boolean, problematicIndices: readonly number[] = []): void {
    if (seq.length === 0) return;
    const win = this.windows(seq);
    if (plausible) for (const k of win) this.cPlus[k] += 1;
    else for (const i of new Set(problematicIndices)) if (i >= 0 && i < win.length) this.cMinus[win[i]] += 1;
  }

  /** One sequence of exactly `length` tool calls at temperature T. */
  generate(length: number, temperature: number, rng: Rng): string[] {
    const { V, nTools, weights } = this;
    const out: string[] = [];
    let u = BOS;
    let v = BOS;
    const logL0 = Math.log(this.lambda0);
    for (let step = 0; step < length; step++) {
      const base = (u * V + v) * V + 2;
      let max = Number.NEGATIVE_INFINITY;
      for (let w = 0; w < nTools; w++) {
        const cp = this.cPlus[base + w];
        const cm = this.cMinus[base + w];
        const s =
          ((cp === 0 ? logL0 : Math.log(cp + this.lambda0)) - (cm === 0 ? 0 : this.lambdaNeg * Math.log1p(cm))) /
          temperature;
        weights[w] = s;
        if (s > max) max = s;
      }
      let total = 0;
      for (let w = 0; w < nTools; w++) {
        const e = Math.exp(weights[w] - max);
        weights[w] = e;
        total += e;
      }
      let r = rng.next() * total;
      let pick = nTools - 1;
      for (let w = 0; w < nTools; w++) {
        r -= weights[w];
        if (r < 0) {
          pick = w;
          break;
        }
      }
      const tok = pick + 2;
      out.push(this.tokens[tok]);
      u = v;
      v = tok;
    }
    return out;
  }

  clone(): ContrastiveSampler {
    const c = new ContrastiveSampler(this.tokens.slice(2));
    c.cPlus.set(this.cPlus);
    c.cMinus.set(this.cMinus);
    c.lambda0 = this.lambda0;
    c.lambdaNeg = this.lambdaNeg;
    return c;
  }

  toJSON(): SamplerTables {
    const sparse = (a: Float64Array) => {
      const rows: [number, number, number, number][] = [];
      const V = this.V;
      a.forEach((c, k) => {
        if (c !== 0) rows.push([Math.floor(k / (V * V)), Math.floor(k / V) % V, k % V, c]);
      });
      return rows;
    };
    return {
      format: 'heldout/taste-trigram@1',
      tokens: this.tokens,
      lambda0: this.lambda0,
      lambdaNeg: this.lambdaNeg,
      cPlus: sparse(this.cPlus),
      cMinus: sparse(this.cMinus),
    };
  }

  static fromJSON(t: SamplerTables): ContrastiveSampler {
    if (t.format !== 'heldout/taste-trigram@1') throw new Error(`sampler tables: unknown format ${t.format}`);
    const s = new ContrastiveSampler(t.tokens.slice(2));
    s.lambda0 = t.lambda0;
    s.lambdaNeg = t.lambdaNeg;
    const V = s.V;
    for (const [u, v, w, c] of t.cPlus) s.cPlus[(u * V + v) * V + w] = c;
    for (const [u, v, w, c] of t.cMinus) s.cMinus[(u * V + v) * V + w] = c;
    return s;
  }
}

/** Target length: skew-normal(7, 5, α 2), clipped to [1, 15], rounded. */
export function sampleLength(rng: Rng): number {
  const { loc, scale, alpha, min, max } = SAMPLER_DEFAULTS.length;
  const x = rng.skewNormal(loc, scale, alpha);
  return Math.round(Math.min(max, Math.max(min, x)));
}

/** T(t) = T0 · exp(−t / τdecay). */
export function temperatureAt(t: number): number {
  return SAMPLER_DEFAULTS.t0 * Math.exp(-t / SAMPLER_DEFAULTS.tauDecay);
}

export interface TrainOptions {
  attempts?: number;
  seed?: number | string;
  /** Called after each attempt (for progress output). */
  onAttempt?: (t: number, accepted: number) => void;
}

export interface TrainResult {
  sampler: ContrastiveSampler;
  /** The model right after the judged gold sequences were ingested (no adaptive training). */
  goldInit: ContrastiveSampler;
  attempts: number;
  /** Generated sequences judged plausible. */
  accepted: number;
  /** Generated sequences that were new (judged); the rest were skipped duplicates. */
  unique: number;
  /** Non-empty gold sequences judged plausible / judged. */
  gold: { judged: number; plausible: number };
  /** Every sequence seen (gold and generated), for fresh-pool exclusion. */
  seen: Set<string>;
  rng: Rng;
}

export const seqKey = (s: readonly string[]) => s.join('\u0000');

/**
 * Stage 1. Gold sequences are judged and ingested first (each one, duplicates included, since they are real task
 * frequencies; they also enter the seen set), then `attempts` generation attempts at T(t); a generated sequence equal
 * to one seen before is skipped without table changes, but the attempt counter advances.
 */
export async function trainSampler(
  toolNames: readonly string[],
  gold: readonly (readonly string[])[],
  validator: Validator,
  options: TrainOptions = {},
): Promise<TrainResult> {
  const rng = new Rng(options.seed ?? 0);
  const sampler = new ContrastiveSampler(toolNames);
  const seen = new Set<string>();
  const known = new Set(toolNames);
  let goldJudged = 0;
  let goldPlausible = 0;
  for (const g of gold) {
    if (g.length === 0 || g.some((t) => !known.has(t))) continue;
    const r = await validator.validate([...g]);
    goldJudged++;
    if (r.plausible) goldPlausible++;
    sampler.ingest(g, r.plausible, r.problematicIndices);
    seen.add(seqKey(g));
  }
  const goldInit = sampler.clone();
  const attempts = options.attempts ?? SAMPLER_DEFAULTS.attempts;
  let accepted = 0;
  let unique = 0;
  for (let t = 0; t < attempts; t++) {
    const seq = sampler.generate(sampleLength(rng), temperatureAt(t), rng);
    const key = seqKey(seq);
    if (!seen.has(key)) {
      seen.add(key);
      unique++;
      const r = await validator.validate(seq);
      if (r.plausible) accepted++;
      sampler.ingest(seq, r.plausible, r.problematicIndices);
    }
    options.onAttempt?.(t, accepted);
  }
  return {
    sampler,
    goldInit,
    attempts,
    accepted,
    unique,
    gold: { judged: goldJudged, plausible: goldPlausible },
    seen,
    rng,
  };
}
