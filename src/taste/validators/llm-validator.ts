import OpenAI from 'openai';
import type { ToolSpec } from '../../tau2/index.js';
import type { ToolRef, Validation, Validator } from '../types.js';

export interface LlmValidatorOptions {
  baseURL?: string;
  apiKey?: string;
  model: string;
  /** The domain's tools, listed in the prompt with type and a one-line description. */
  tools: readonly (ToolRef & Partial<Pick<ToolSpec, 'description'>>)[];
  temperature?: number;
  /** Retries when the reply is not the expected JSON (default 1). */
  retries?: number;
  timeoutMs?: number;
}

/** The domain-agnostic judging instructions (DESIGN §11). */
export const LLM_VALIDATOR_SYSTEM = `You judge whether a sequence of tool calls is a plausible trajectory for a customer-service agent benchmark task.
Judge only the sequence of tool names (arguments are not shown). Check:
1. Structure: the calls form a coherent task, not a random mix.
2. Logical flow: each call has a reason given the calls before it.
3. Read before write: information a write depends on could have been obtained (from the user or an earlier read) before it.
4. Causal order: nothing acts on an entity after the entity was removed, and nothing follows a final hand-off.
5. Benchmark viability: a user scenario could plausibly lead to exactly these calls.
Uncommon but plausible sequences are acceptable, and so are sequences serving several user intents in one conversation.
Reply with one JSON object and nothing else: {"plausible": true|false, "problematic_indices": [0-based indices of the calls that make the sequence implausible], "reason": "one sentence"}`;

function firstLine(s: string | undefined): string {
  return (
    (s ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 200) ?? ''
  );
}

/** Extracts the JSON verdict from a reply, tolerating code fences and prose around it. */
export function parseVerdict(content: string, length: number): Validation {
  let text = content.trim();
  const fence = text.match(/```(?:json)?\s*([\s\S]*?)```/i);
  if (fence) text = fence[1].trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error(`LLM validator: no JSON object in reply: ${content.slice(0, 200)}`);
  const obj = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
  const raw = obj.plausible;
  const plausible = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : undefined;
  if (plausible === undefined) throw new Error('LLM validator: reply has no boolean "plausible"');
  const list = obj.problematic_indices ?? obj.problematicIndices ?? [];
  const indices = (Array.isArray(list) ? list : [])
    .map((x) => Number(x))
    .filter((x) => Number.isInteger(x) && x >= 0 && x < length);
  return {
    plausible,
    problematicIndices: plausible ? [] : [...new Set(indices)].sort((a, b) => a - b),
    reason: typeof obj.reason === 'string' ? obj.reason : '',
  };
}

/**
 * A validator that asks an OpenAI-compatible chat endpoint (configured with the generator role's settings, called directly, not through the gateway). It never
 * invents a verdict: an unparseable reply after the retries, or a failed request, rejects the promise.
 */
export function llmValidator(opts: LlmValidatorOptions): Validator {
  const client = new OpenAI({
    baseURL: opts.baseURL,
    apiKey: opts.apiKey ?? 'unset',
    timeout: opts.timeoutMs ?? 60_000,
    maxRetries: 2,
  });
  const toolList = opts.tools
    .map((t) => `- ${t.name} (${String(t.type).toUpperCase()}): ${firstLine(t.description)}`)
    .join('\n');
  return {
    async validate(seq: string[]): Promise<Validation> {
      const user = `Available tools:\n${toolList}\n\nSequence:\n${seq.map((t, i) => `${i}. ${t}`).join('\n')}`;
      let lastError: unknown;
      for (let attempt = 0; attempt <= (opts.retries ?? 1); attempt++) {
        const res = await client.chat.completions.create({
          model: opts.model,
          temperature: opts.temperature ?? 0,
          messages: [
            { role: 'system', content: LLM_VALIDATOR_SYSTEM },
            { role: 'user', content: user },
          ],
        });
        try {
          return parseVerdict(res.choices[0]?.message?.content ?? '', seq.length);
        } catch (err) {
          lastError = err;
        }
      }
      throw lastError;
    },
  };
}
