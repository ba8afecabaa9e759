import type { GateBullet } from './agentswe-rubric.js';
import { sentences } from './agentswe-rules.js';
import { blocks } from './markdown-blocks.js';
import { asNumber, asObject } from './values.js';

/** The per-case budgets heldout enforces, as commission.yaml names them. */
export type BudgetField = 'wallSeconds' | 'memoryMb' | 'modelCalls' | 'modelTokens' | 'devRounds';

/** One budget value and the text it was read from (quoted in the notes). */
export interface BudgetReading {
  field: BudgetField;
  value: number;
  from: string;
}

/** What prose says about budgets: the values it gives and the budget sentences nothing could be read from. */
export interface ProseBudgets {
  readings: BudgetReading[];
  /** Image-bearing sub-limits (not enforced apart: heldout's gateway counts every call). */
  subLimits: string[];
  unread: string[];
}

const num = (s: string) => Number(s.replace(/,/g, ''));
const BUILDER_ONLY = /\bbuilder\b|optional assistance|for the whole/i;
const BUDGETISH = /\b(budget|limit(?:ed)?|at most|maximum|cap)\b/i;
const UNIT = /\b(seconds?|GiB|MiB|GB|MB|bytes|calls?|requests?|tokens?)\b|\d+k\s+tokens/i;
const IMAGE = /image[- ]bearing|input_image|contain(?:ing)? images?|\bimage (?:calls|requests)\b/i;
// A count stated as a limit ("at most 300", "maximum: 300") or next to its unit ("300 GATEWAY requests"); never a
// digit inside a token (`gpt-5.6`, base64).
const N = String.raw`(?<![\w.-])(\d[\d,]*)(?![\w.])`;
const CALL_COUNT = [
  new RegExp(String.raw`(?:at most|maximum:?|max(?:imum)?|up to|limit(?:ed)? to|budget(?: is)?:?|cap:?)\s*${N}`, 'i'),
  new RegExp(String.raw`${N}\s+(?:[\w/-]+\s+){0,4}(?:calls?|requests?)\b`, 'i'),
  new RegExp(String.raw`(?:calls?|requests?)\s*:\s*(?:at most\s*)?${N}`, 'i'),
];
const NOT_MODEL = /search|serper|visit|retrieval|tool calls?|hook|inspector|focused|suite|per invocation|startup/i;

/** The seconds, MiB, model calls and tokens one sentence states, split by clause; and its image sub-limits. */
export function readBudgetSentence(s: string): { readings: BudgetReading[]; subLimits: string[] } {
  const readings: BudgetReading[] = [];
  const subLimits: string[] = [];
  const quote = s.trim();
  const time = /(\d[\d,]*)[-\s]*(?:seconds?\b|s\b(?!\w))/i.exec(s);
  if (time && !/per invocation|focused|startup|suite|reserve|cleanup/i.test(s))
    readings.push({ field: 'wallSeconds', value: num(time[1]!), from: quote });
  const bytes = /`?(\d{9,})`?\s*bytes/i.exec(s);
  const mem = /(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB)\b/i.exec(s);
  if (bytes) readings.push({ field: 'memoryMb', value: Math.round(num(bytes[1]!) / 1048576), from: quote });
  else if (mem)
    readings.push({
      field: 'memoryMb',
      value: Math.round(Number(mem[1]) * (/^G/i.test(mem[2]!) ? 1024 : 1)),
      from: quote,
    });
  const clauses = s.split(/\s*;\s*|,\s+|\s+and\s+/);
  let calls = 0;
  let pools = 0;
  for (const c of clauses) {
    const tokens = /(\d[\d,]*)(k)?\s+(?:[\w-]+\s+){0,3}tokens?\b/i.exec(c);
    if (tokens) readings.push({ field: 'modelTokens', value: num(tokens[1]!) * (tokens[2] ? 1000 : 1), from: quote });
    if (!/\b(calls?|requests?)\b/i.test(c) || NOT_MODEL.test(c)) continue;
    const n = CALL_COUNT.map((re) => re.exec(c)).find((m) => m !== null);
    if (!n) continue;
    if (IMAGE.test(c)) {
      subLimits.push(c.trim());
      // Two pools ("180 text calls and 20 image-bearing calls") add up; an included sub-limit does not.
      if (/\btext (?:calls|requests)\b/i.test(s) && !/included/i.test(s)) {
        calls += num(n[1]!);
        pools++;
      }
      continue;
    }
    if (calls === 0 || pools > 0) {
      calls += num(n[1]!);
      pools += /\btext (?:calls|requests)\b/i.test(c) ? 1 : 0;
    }
  }
  if (calls > 0) readings.push({ field: 'modelCalls', value: calls, from: quote });
  return { readings, subLimits };
}

/** Every budget the resources text states, sentence by sentence (builder-only budgets left out and said so). */
export function proseBudgets(text: string): ProseBudgets {
  const out: ProseBudgets = { readings: [], subLimits: [], unread: [] };
  for (const b of blocks(text)) {
    for (const s of b.item ? [b.text] : sentences(b.text)) {
      if (!UNIT.test(s) || !/\d/.test(s)) continue;
      const budgetish = BUDGETISH.test(s) || /\bper (case|row|run)\b/i.test(s);
      if (BUILDER_ONLY.test(s)) continue;
      const r = readBudgetSentence(s);
      out.readings.push(...r.readings);
      out.subLimits.push(...r.subLimits);
      if (budgetish && r.readings.length === 0 && r.subLimits.length === 0 && !/no benchmark-imposed/i.test(s))
        out.unread.push(s.trim());
    }
  }
  return out;
}

/** The structured budgets: task.json's protocol, the contract's `fixed_space.budgets` and `runtime` blocks. */
export function structuredBudgets(
  protocol: Record<string, unknown> | null,
  contract: Record<string, unknown> | null,
): BudgetReading[] {
  const out: BudgetReading[] = [];
  const take = (field: BudgetField, obj: Record<string, unknown> | null, keys: string[], where: string) => {
    for (const k of keys) {
      const v = asNumber(obj?.[k]);
      if (v !== null) {
        out.push({ field, value: v, from: `${where}.${k} = ${v}` });
        return;
      }
    }
  };
  take('wallSeconds', protocol, ['case_timeout_sec'], 'task.json protocol');
  take('devRounds', protocol, ['max_dev_rounds'], 'task.json protocol');
  const fb = asObject(asObject(contract?.fixed_space)?.budgets);
  const rt = asObject(contract?.runtime);
  take(
    'wallSeconds',
    fb,
    ['runtime_seconds_cap', 'runtime_seconds', 'agent_wall_seconds'],
    'task_contract.json fixed_space.budgets',
  );
  take('wallSeconds', rt, ['agent_wall_seconds', 'runtime_seconds'], 'task_contract.json runtime');
  take(
    'modelCalls',
    fb,
    ['runtime_model_calls', 'model_calls', 'max_model_calls'],
    'task_contract.json fixed_space.budgets',
  );
  take('modelCalls', rt, ['max_model_calls', 'model_calls'], 'task_contract.json runtime');
  take(
    'modelTokens',
    fb,
    ['runtime_tokens', 'max_model_tokens', 'model_tokens'],
    'task_contract.json fixed_space.budgets',
  );
  take('modelTokens', rt, ['max_model_tokens', 'runtime_tokens'], 'task_contract.json runtime');
  return out;
}

const STRONG: Record<BudgetField, RegExp> = {
  wallSeconds: /wall|time limit|timeout|envelope|limited to|per case|per row|budget/i,
  memoryMb: /memory|\bRAM\b|address space|resident|PSS|peak|limit/i,
  modelCalls: /budget|at most|maximum|limit/i,
  modelTokens: /budget|at most|maximum|limit/i,
  devRounds: /round/i,
};

const DEFAULTS: Record<BudgetField, number> = {
  wallSeconds: 600,
  memoryMb: 4096,
  modelCalls: 100,
  modelTokens: 1_000_000,
  devRounds: 20,
};

/**
 * The commission's budgets: structured values first, then the resources document's prose, then the rubric's
 * time/memory zero rules; each value with its source, each disagreement and each default said in `notes`.
 */
export function budgetsFrom(
  protocol: Record<string, unknown> | null,
  contract: Record<string, unknown> | null,
  resources: { name: string; text: string },
  gates: GateBullet[],
  note: (text: string) => void,
): Record<string, number> {
  const structured = structuredBudgets(protocol, contract);
  const prose = proseBudgets(resources.text);
  const budgets: Record<string, number> = {};
  for (const field of Object.keys(DEFAULTS) as BudgetField[]) {
    const s = structured.find((r) => r.field === field);
    // A sentence about this very budget ("Memory limit: 4 GiB per case.") before one that mentions it in passing.
    const p = prose.readings
      .filter((r) => r.field === field)
      .map((r, i) => ({ r, i, strong: STRONG[field].test(r.from) ? 0 : 1 }))
      .sort((a, b) => a.strong - b.strong || a.i - b.i)
      .map((x) => x.r);
    const g =
      field === 'wallSeconds'
        ? gates.find((x) => x.seconds !== null)
        : field === 'memoryMb'
          ? gates.find((x) => x.memoryMb !== null)
          : undefined;
    const chosen: BudgetReading | null =
      s ??
      p[0] ??
      (g
        ? { field, value: field === 'wallSeconds' ? g.seconds! : g.memoryMb!, from: `the rubric: "${g.text}"` }
        : null);
    if (!chosen) {
      if (field !== 'devRounds' || protocol)
        note(`budget ${field}: the package states none; heldout's default ${DEFAULTS[field]} applies`);
      continue;
    }
    budgets[field] = chosen.value;
    const where = chosen === s ? chosen.from : chosen === p[0] ? `${resources.name}: "${chosen.from}"` : chosen.from;
    note(`budget ${field} = ${chosen.value}, from ${where}`);
    const others = [...new Set(p.filter((r) => r.value !== chosen.value).map((r) => `${r.value} ("${r.from}")`))];
    if (others.length)
      note(`budget ${field}: ${resources.name} also says ${others.join('; ')}; ${chosen.value} was used`);
  }
  if (prose.subLimits.length)
    note(
      `sub-limits not enforced apart (heldout's gateway counts every model call against modelCalls): ${[...new Set(prose.subLimits)].map((x) => `"${x}"`).join('; ')}`,
    );
  for (const u of prose.unread) note(`budget sentence not read as a heldout budget (check it by hand): "${u}"`);
  return budgets;
}
