import type { Rng } from './prng.js';
import { type ContrastiveSampler, sampleLength, type TrainResult } from './sampler.js';
import type { Validator } from './types.js';

export interface ValidityReport {
  attempts: number;
  accepted: number;
  unique: number;
  validity: { trained: number; uniform: number; goldInit: number; gold: number | null };
}

async function share(draw: () => string[], n: number, validator: Validator): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await validator.validate(draw())).plausible) ok++;
  return ok / n;
}

/**
 * Issue 8's validity report: shares of `n` (300) fresh draws judged plausible — from the trained model at T = 1, from a
 * uniform sampler over the tools with the same length law, from the gold-initialised untrained model — and the share
 * of non-empty gold sequences judged plausible. Draws may repeat (validity is a property of the distribution).
 */
export async function validityReport(
  train: TrainResult,
  validator: Validator,
  options: { n?: number; rng?: Rng } = {},
): Promise<ValidityReport> {
  const n = options.n ?? 300;
  const rng = options.rng ?? train.rng.fork('validity');
  const tools: string[] = train.sampler.tokens.slice(2);
  const from = (s: ContrastiveSampler) => () => s.generate(sampleLength(rng), 1, rng);
  const trained = await share(from(train.sampler), n, validator);
  const uniform = await share(
    () => Array.from({ length: sampleLength(rng) }, () => tools[rng.int(tools.length)]),
    n,
    validator,
  );
  const goldInit = await share(from(train.goldInit), n, validator);
  return {
    attempts: train.attempts,
    accepted: train.accepted,
    unique: train.unique,
    validity: {
      trained,
      uniform,
      goldInit,
      gold: train.gold.judged === 0 ? null : train.gold.plausible / train.gold.judged,
    },
  };
}
