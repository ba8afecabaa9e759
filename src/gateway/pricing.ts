/**
 * The pricing table (issue 34): what a model's tokens cost in US dollars, read from a file the user names. Pure
 * apart from `readPricing`: the cost of a call and of a call's reservation are functions of the table and usage.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const rate = z.number().nonnegative().finite();

const ratesShape = {
  /** USD per million prompt tokens not read from or written to a cache. */
  input: rate,
  /** USD per million completion tokens (reasoning tokens included, as providers count them). */
  output: rate,
  /** USD per million prompt tokens read from the provider's cache; default `input`. */
  cachedInput: rate.optional(),
  /** USD per million prompt tokens written to the provider's cache; default `input`. */
  cacheWrite: rate.optional(),
};

const tierSchema = z
  .object({ above: z.number().int().nonnegative(), ...ratesShape })
  .partial({ input: true, output: true })
  .strict();

const modelPriceSchema = z.object({ ...ratesShape, tiers: z.array(tierSchema).optional() }).strict();

const pricingFileSchema = z.object({ models: z.record(z.string().min(1), modelPriceSchema) }).strict();

/** One model's rates; `tiers` (long context): above `above` prompt tokens the whole call is priced at the tier's rates. */
export type ModelPrice = z.output<typeof modelPriceSchema>;

/** A pricing table: rates by model name (the model the gateway sends upstream, matched exactly). */
export interface PricingTable {
  /** The file it was read from, named in notices and refusals. */
  source: string;
  models: Record<string, ModelPrice>;
}

/** Validates a parsed pricing document; a bad one throws one line naming `source` and the field. */
export function pricingFrom(doc: unknown, source: string): PricingTable {
  const r = pricingFileSchema.safeParse(doc);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
    throw new Error(`${source}: ${field}: ${issue.message}`);
  }
  return { source, models: r.data.models };
}

/** Reads a pricing file (YAML or JSON, which is YAML); throws one line naming the file and the field. */
export function readPricing(file: string): PricingTable {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${String((err as Error).message).split('\n')[0]}`);
  }
  return pricingFrom(doc, file);
}

/** The rates that apply to a call with `promptTokens` prompt tokens: the highest tier it passes, over the base. */
export function ratesFor(price: ModelPrice, promptTokens: number): Required<Omit<ModelPrice, 'tiers'>> {
  let r = { input: price.input, output: price.output, cachedInput: price.cachedInput, cacheWrite: price.cacheWrite };
  let reached = -1;
  for (const t of price.tiers ?? []) {
    if (promptTokens > t.above && t.above > reached) {
      reached = t.above;
      r = {
        input: t.input ?? price.input,
        output: t.output ?? price.output,
        cachedInput: t.cachedInput ?? price.cachedInput,
        cacheWrite: t.cacheWrite ?? price.cacheWrite,
      };
    }
  }
  return {
    input: r.input,
    output: r.output,
    cachedInput: r.cachedInput ?? r.input,
    cacheWrite: r.cacheWrite ?? r.input,
  };
}

/** The counts a price reads (a ledger line's `usage` has them; declared here so types.ts can name the table). */
export interface PricedUsage {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * USD of one call's usage. Cached and cache-write tokens are parts of the prompt tokens (as OpenAI-compatible
 * providers report them), clamped into it so a provider's inconsistent report never prices a token twice.
 */
export function costOf(price: ModelPrice, usage: PricedUsage): number {
  const prompt = Math.max(0, usage.promptTokens);
  const cached = Math.min(prompt, Math.max(0, usage.cacheReadTokens ?? 0));
  const written = Math.min(prompt - cached, Math.max(0, usage.cacheWriteTokens ?? 0));
  const r = ratesFor(price, prompt);
  const plain = prompt - cached - written;
  const micro = plain * r.input + cached * r.cachedInput + written * r.cacheWrite;
  return (micro + Math.max(0, usage.completionTokens) * r.output) / 1e6;
}

/**
 * USD to reserve for a call before it goes upstream: its reserved prompt and output tokens at the dearest prompt rate
 * of the tier they reach, so the call's real cost stays under it whenever its tokens stay under their reservation.
 */
export function reservationCost(price: ModelPrice, promptTokens: number, outputTokens: number): number {
  const r = ratesFor(price, promptTokens);
  const input = Math.max(r.input, r.cachedInput, r.cacheWrite);
  return (promptTokens * input + outputTokens * r.output) / 1e6;
}
