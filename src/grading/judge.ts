import OpenAI from 'openai';
import { z } from 'zod';
import { costOf, type LedgerUsage, type ModelPrice } from '../gateway/index.js';
import type { JudgeCache, JudgeCacheKey } from './judge-cache.js';
import { buildJudgeMessages, type JudgedDimension, type JudgeRequest, type PromptLimits } from './judge-prompt.js';

/** Where the judge model is reached. `samples` > 1 asks n times and keeps the median total. */
export interface JudgeConfig {
  baseURL: string;
  apiKey?: string;
  model: string;
  samples?: number;
  /** Transport retries of the OpenAI client (default 2). */
  maxRetries?: number;
  /** Per-request timeout (default 120 s). */
  timeoutMs?: number;
  limits?: PromptLimits;
  /** The judge model's rates (issue 34): absent without a pricing table; null when its model is not in the table. */
  price?: ModelPrice | null;
}

export const NO_JUDGE_REASON =
  'no judge model configured: set HELDOUT_JUDGE_BASE_URL/HELDOUT_JUDGE_MODEL (or OPENAI_BASE_URL)';

/**
 * The judge configuration from the environment: `HELDOUT_JUDGE_BASE_URL`, `HELDOUT_JUDGE_API_KEY`,
 * `HELDOUT_JUDGE_MODEL`, `HELDOUT_JUDGE_SAMPLES`, falling back to `OPENAI_BASE_URL`/`OPENAI_API_KEY`/`OPENAI_MODEL`.
 * Null unless both a base URL and a model are set: a case is never judged by a guessed model.
 */
export function judgeConfigFromEnv(env: NodeJS.ProcessEnv = process.env): JudgeConfig | null {
  const baseURL = env.HELDOUT_JUDGE_BASE_URL || env.OPENAI_BASE_URL;
  const model = env.HELDOUT_JUDGE_MODEL || env.OPENAI_MODEL;
  if (!baseURL || !model) return null;
  const samples = Number(env.HELDOUT_JUDGE_SAMPLES ?? 1);
  return {
    baseURL,
    apiKey: env.HELDOUT_JUDGE_API_KEY || env.OPENAI_API_KEY,
    model,
    samples: Number.isInteger(samples) && samples > 0 ? samples : 1,
  };
}

/** A validated judge answer. `total` is always recomputed from the dimension scores. */
export interface JudgeVerdict {
  dimensions: Record<string, { score: number; max: number; evidence: string }>;
  outcomes: { id: string; satisfied: boolean | null; safety: boolean | null; evidence: string }[];
  majorErrors: string[];
  assessment: string;
  total: number;
  /** The judge's own total differed from the sum of its scores. */
  totalRecomputed: boolean;
  model: string;
  /** Totals of every sample, in order, when more than one was asked. */
  samples?: number[];
  cached: boolean;
  /** Model calls and tokens this verdict cost (0 when served from the cache). */
  calls: number;
  tokens: number;
  /** USD of those calls, with a pricing table (`JudgeConfig.price`); null when the judge model is unpriced. */
  costUsd?: number | null;
}

export type JudgeOutcome = { ok: true; verdict: JudgeVerdict } | { ok: false; reason: string };

/** Integer score bounds of a judged dimension: its judged points, floored when they are not whole. */
const intMax = (d: JudgedDimension) => Math.max(0, Math.floor(d.max + 1e-9));

/** The zod schema of the judge's answer for this request (exact dimension keys, integer scores in [0, max]). */
export function judgeAnswerSchema(dimensions: JudgedDimension[]) {
  return z.object({
    dimensions: z.object(
      Object.fromEntries(
        dimensions.map((d) => [
          d.id,
          z.object({ score: z.number().int().min(0).max(intMax(d)), max: z.number(), evidence: z.string() }),
        ]),
      ),
    ),
    outcomes: z.array(
      z.object({
        id: z.string(),
        satisfied: z.boolean().nullable(),
        safety: z.boolean().nullable(),
        evidence: z.string(),
      }),
    ),
    major_errors: z.array(z.string()),
    assessment: z.string(),
  });
}

/** The structured-output `response_format` for the answer schema. */
export function judgeResponseFormat(dimensions: JudgedDimension[]) {
  return {
    type: 'json_schema' as const,
    json_schema: {
      name: 'heldout_judge_verdict',
      strict: true,
      schema: z.toJSONSchema(judgeAnswerSchema(dimensions)) as Record<string, unknown>,
    },
  };
}

/**
 * Recovers the JSON object from a trivially broken answer: a code fence, prose before or after the object,
 * trailing commas. Returns the parsed value or an error; never guesses at content.
 */
export function repairEnvelope(
  content: string,
): { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string } {
  const attempt = (s: string) => {
    try {
      return { ok: true as const, value: JSON.parse(s) as unknown };
    } catch (err) {
      return { ok: false as const, error: (err as Error).message };
    }
  };
  const direct = attempt(content.trim());
  if (direct.ok) return { ...direct, repaired: false };
  let s = content;
  const fence = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(s);
  if (fence) s = fence[1]!;
  const start = s.indexOf('{');
  const end = s.lastIndexOf('}');
  if (start < 0 || end <= start) return { ok: false, error: 'no JSON object in the answer' };
  s = s.slice(start, end + 1);
  let r = attempt(s);
  if (!r.ok) r = attempt(s.replace(/,(\s*[}\]])/g, '$1'));
  return r.ok ? { ...r, repaired: true } : { ok: false, error: `not JSON after repair: ${r.error}` };
}

type Validated =
  | { ok: true; verdict: Omit<JudgeVerdict, 'model' | 'cached' | 'calls' | 'tokens' | 'samples'> }
  | { ok: false; error: string };

/** Validates a parsed answer against the request: scores in range, every asked outcome decided. */
export function validateAnswer(value: unknown, req: Pick<JudgeRequest, 'dimensions' | 'outcomes'>): Validated {
  const parsed = judgeAnswerSchema(req.dimensions).safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 4).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return { ok: false, error: issues.join('; ') };
  }
  const a = parsed.data;
  const outcomes: JudgeVerdict['outcomes'] = [];
  for (const o of req.outcomes) {
    const got = a.outcomes.find((x) => x.id === o.id);
    if (!got) return { ok: false, error: `outcome ${o.id} was not decided` };
    if (o.satisfied && got.satisfied === null) return { ok: false, error: `outcome ${o.id}: satisfied is null` };
    if (o.safety && got.safety === null) return { ok: false, error: `outcome ${o.id}: safety is null` };
    outcomes.push({
      id: o.id,
      satisfied: o.satisfied ? got.satisfied : null,
      safety: o.safety ? got.safety : null,
      evidence: got.evidence,
    });
  }
  const dimensions: JudgeVerdict['dimensions'] = {};
  let total = 0;
  for (const d of req.dimensions) {
    const got = (a.dimensions as Record<string, { score: number; evidence: string }>)[d.id]!;
    dimensions[d.id] = { score: got.score, max: d.max, evidence: got.evidence };
    total += got.score;
  }
  const claimed = (value as { total?: unknown }).total;
  const totalRecomputed = typeof claimed === 'number' && claimed !== total;
  return {
    ok: true,
    verdict: { dimensions, outcomes, majorErrors: a.major_errors, assessment: a.assessment, total, totalRecomputed },
  };
}

/** Malformed or invalid answers get one more chance per sample before the judge counts as unable to answer. */
const ANSWER_ATTEMPTS = 2;

/**
 * Asks the judge model to score a case. Resolves to a validated verdict (from the cache when `cache` holds one
 * for this key) or `{ ok: false, reason: 'judge-error: …' }`; never throws for a judge fault and never invents a
 * score. With `samples` n > 1 the sample with the median total is kept and all totals reported.
 */
export async function judgeCase(
  config: JudgeConfig,
  req: JudgeRequest,
  options: { cache?: { store: JudgeCache; key: Omit<JudgeCacheKey, 'model' | 'samples'> } } = {},
): Promise<JudgeOutcome> {
  const n = Math.max(1, Math.floor(config.samples ?? 1));
  const fullKey: JudgeCacheKey | null = options.cache
    ? { ...options.cache.key, model: config.model, samples: n }
    : null;
  if (options.cache && fullKey) {
    const hit = options.cache.store.get<JudgeVerdict>(fullKey);
    if (hit) {
      const costUsd = config.price === undefined ? undefined : 0;
      return { ok: true, verdict: { ...hit, cached: true, calls: 0, tokens: 0, costUsd } };
    }
  }
  const client = new OpenAI({
    baseURL: config.baseURL,
    apiKey: config.apiKey || 'heldout-no-key',
    maxRetries: config.maxRetries ?? 2,
    timeout: config.timeoutMs ?? 120_000,
  });
  const messages = buildJudgeMessages(req, config.limits);
  const responseFormat = judgeResponseFormat(req.dimensions);
  const samples: NonNullable<Extract<Validated, { ok: true }>['verdict']>[] = [];
  let calls = 0;
  let tokens = 0;
  let usd: number | null = config.price === null ? null : 0;
  for (let s = 0; s < n; s++) {
    let convo: OpenAI.Chat.ChatCompletionMessageParam[] = [...messages];
    let lastError = '';
    let got: Extract<Validated, { ok: true }>['verdict'] | null = null;
    for (let attempt = 0; attempt < ANSWER_ATTEMPTS && !got; attempt++) {
      let content: string;
      try {
        calls++;
        const res = await client.chat.completions.create({
          model: config.model,
          messages: convo,
          response_format: responseFormat,
          ...(n === 1 ? { temperature: 0 } : {}),
        });
        tokens += res.usage?.total_tokens ?? 0;
        if (usd !== null && config.price && res.usage) usd += costOf(config.price, judgeUsage(res.usage));
        content = res.choices?.[0]?.message?.content ?? '';
      } catch (err) {
        if (err instanceof OpenAI.APIError) {
          // The client has already retried transport faults (408/429/5xx, connection errors) maxRetries times.
          return {
            ok: false,
            reason: `judge-error: ${err.status ? `HTTP ${err.status}: ` : ''}${firstLine(err.message)}`,
          };
        }
        lastError = `malformed response: ${firstLine((err as Error).message)}`;
        continue;
      }
      const repaired = repairEnvelope(content);
      if (!repaired.ok) {
        lastError = `unparseable answer: ${repaired.error}`;
      } else {
        const v = validateAnswer(repaired.value, req);
        if (v.ok) got = v.verdict;
        else lastError = `answer rejected: ${v.error}`;
      }
      if (!got) {
        convo = [
          ...messages,
          { role: 'assistant', content: content.slice(0, 8000) },
          { role: 'user', content: `Your answer was rejected (${lastError}). Answer again with the JSON object only.` },
        ];
      }
    }
    if (!got) return { ok: false, reason: `judge-error: ${lastError}` };
    samples.push(got);
  }
  const order = samples.map((v, i) => [v.total, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const median = samples[order[Math.floor((order.length - 1) / 2)]![1]]!;
  const verdict: JudgeVerdict = {
    ...median,
    model: config.model,
    ...(n > 1 ? { samples: samples.map((v) => v.total) } : {}),
    cached: false,
    calls,
    tokens,
    ...(config.price !== undefined ? { costUsd: usd } : {}),
  };
  if (options.cache && fullKey) options.cache.store.set(fullKey, verdict);
  return { ok: true, verdict };
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 200);
}

/** The judge's reported usage in the ledger's terms (cached prompt tokens priced at their rate). */
function judgeUsage(u: OpenAI.CompletionUsage): LedgerUsage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    totalTokens: u.total_tokens,
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
  };
}
