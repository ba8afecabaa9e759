import { join } from 'node:path';
import type { Tau2Domain } from '../tau2/index.js';
import { writeFileAtomic } from '../util/index.js';
import type { KMedoidsMethod } from './kmedoids.js';
import type { Validator } from './types.js';
import { llmValidator } from './validators/llm-validator.js';
import { ruleValidator } from './validators/rule-validator.js';

/** Raised when the chosen validator cannot be built (CLI: exit 2). */
export class ValidatorConfigError extends Error {}

/**
 * The validator a `heldout taste` command asked for. `llm` reads HELDOUT_GENERATOR_BASE_URL / _API_KEY / _MODEL,
 * falling back to OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL; without a model and an endpoint it refuses.
 */
export function validatorFor(kind: string, domain: Tau2Domain, env: NodeJS.ProcessEnv = process.env): Validator {
  if (kind === 'rules') return ruleValidator(domain);
  if (kind !== 'llm') throw new ValidatorConfigError(`--validator: expected rules or llm, got ${kind}`);
  const baseURL = env.HELDOUT_GENERATOR_BASE_URL || env.OPENAI_BASE_URL || undefined;
  const apiKey = env.HELDOUT_GENERATOR_API_KEY || env.OPENAI_API_KEY || undefined;
  const model = env.HELDOUT_GENERATOR_MODEL || env.OPENAI_MODEL || undefined;
  if (!model || (!baseURL && !apiKey)) {
    throw new ValidatorConfigError(
      '--validator llm needs a model endpoint: set HELDOUT_GENERATOR_BASE_URL, HELDOUT_GENERATOR_API_KEY and ' +
        'HELDOUT_GENERATOR_MODEL (or OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL). No validity is reported without one.',
    );
  }
  return llmValidator({ baseURL, apiKey, model, tools: domain.tools });
}

/** A --method value; undefined keeps the default (the assignment/update alternation). */
export function parseMethod(raw: unknown): KMedoidsMethod | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'alternate' || raw === 'fasterpam') return raw;
  throw new ValidatorConfigError(`--method: expected alternate or fasterpam, got ${String(raw)}`);
}

/** A --seed value: a number when it reads as one, else the string itself. */
export function parseSeed(raw: unknown, fallback: number | string = 0): number | string {
  if (raw === undefined) return fallback;
  const s = String(raw);
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

/** Writes `<dir>/<file>` atomically (an interrupted command leaves the previous file or none, never half of one). */
export async function writeJson(dir: string, file: string, value: unknown): Promise<string> {
  const p = join(dir, file);
  await writeFileAtomic(p, `${JSON.stringify(value, null, 2)}\n`);
  return p;
}
