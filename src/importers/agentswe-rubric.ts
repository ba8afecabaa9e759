import { chooseDimensions, dimensionCandidates, type WeightedDimension } from './agentswe-dimensions.js';
import { type CeilingRule, scanRules, type ZeroCondition } from './agentswe-rules.js';
import { sameName, slug } from './markdown.js';

/**
 * Turning an AgentSWE Result rubric (Markdown, optionally with a `{id: weight}` dimensions JSON) into heldout's
 * rubric pieces: dimensions with their judge texts, zero conditions split into what heldout enforces by a gate and
 * what needs judgment, the statements that limit them, and the total ceilings. Pure.
 */

export interface PlannedDimension {
  id: string;
  title: string;
  weight: number;
  /** The rubric text the judge applies (the dimension's section), or null when the rubric has none. */
  text: string | null;
}

/** One zero condition and what heldout makes of it. */
export interface GateBullet {
  text: string;
  /** Mechanical parts heldout enforces deterministically. */
  mechanical: ('exit' | 'budget' | 'artifacts' | 'jsonl' | 'rows')[];
  /** Artifact files the condition requires present (and parseable). */
  required: string[];
  /** Artifact files the condition names only together ("collectively absent"): at least one must be there. */
  collective: string[];
  /** Files the condition requires parseable when present (validated by heldout only when required). */
  parseable: string[];
  /** True when part of the condition needs judgment (or observations heldout does not have). */
  judged: boolean;
  seconds: number | null;
  memoryMb: number | null;
  /** "produces no target artifacts": at least one of the required artifacts must be there. */
  noTargets: boolean;
  /** Artifacts the condition names by description ("final screenshot") that no interface output matches alone. */
  unresolved: string[];
}

export interface RubricPlan {
  dimensions: PlannedDimension[];
  /** How the dimensions were read (`the weight table`, `result_dimensions.json`, …). */
  dimensionSource: string;
  gates: GateBullet[];
  /** Statements that limit the zero rules (kept as guidance, never gates). */
  negative: string[];
  ceilings: CeilingRule[];
  /** Where the zero rules were found. */
  zeroFoundIn: string[];
  /** Rubric text outside dimensions and rules that frames every judgment. */
  guidance: string;
  notes: string[];
  problems: string[];
}

const FILE =
  /`?(?:<[\w-]+>\/)?([\w./-]*\w\.(?:json|jsonl|csv|md|html|txt|pdf|patch|diff|xml|ya?ml|png|pptx|lean|py))`?/g;
const JUDGED =
  /violat|credential|network|hidden|permission|provider budget|meaningful|transcript|different (?:artifact|case)|re-?execut|auditab|leak|forbidden|immutab|fabricat|unsafe|unauthori[sz]ed|tamper|destructive|attack|placeholder|unrelated|not an object|security|contract|clean|semantic|omits a requested|reports success/i;
const MISSING =
  /\bno\b[^:;\n]*?\b(?:is |are )?produced|produces no|\babsent\b|\bmissing\b|not produced|\bomits?\b|exits success without|does not (?:produce|write)/i;
const PARSE =
  /corrupt|unparse|unparsable|not parseable|malformed|invalid|cannot be parsed|no parseable|not (?:a )?(?:valid|readable)|non-UTF-8|\bempty\b/i;

const unique = (xs: string[]) => [...new Set(xs)];

// An artifact named by what it is ("final screenshot", "evidence manifest"): the kind noun and the file types it
// stands for. A kind also matches a file whose name holds the noun (`run_report.json` for "report").
const KINDS: Record<string, RegExp> = {
  screenshot: /\.(?:png|jpe?g|webp)$/,
  image: /\.(?:png|jpe?g|webp|svg)$/,
  capture: /\.(?:png|jpe?g|webp)$/,
  report: /\.(?:json|md)$/,
  manifest: /\.json$/,
  deck: /\.pptx$/,
  patch: /\.(?:patch|diff)$/,
  trace: /\.jsonl?$/,
  bundle: /\.json$/,
};
const DESCRIBED = new RegExp(
  `\\b((?:[a-z][a-z-]*\\s+){0,2})(${Object.keys(KINDS).join('|')})s?\\b(?!\\s+success)`,
  'gi',
);
const NOT_QUALIFIER =
  /^(?:the|a|an|no|or|and|nor|either|neither|both|any|every|each|its|their|is|are|not|valid|readable|required|requested|target|produced|missing|absent|corrupt|empty|one|png|json|unsafe|unparsable|unparseable|malformed|invalid|binary|oversized|agent|it|this|that)$/i;

/**
 * The output an artifact description names: files of the description's kind whose name holds every qualifier
 * ("final screenshot" → `final_state.png` among three PNGs). Null unless exactly one output fits.
 */
export function describedArtifact(qualifiers: string[], kind: string, outputs: string[]): string | null {
  const k = kind.toLowerCase();
  const ext = KINDS[k];
  if (!ext) return null;
  const tokens = (f: string) =>
    f
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const fits = outputs.filter((f) => {
    const t = tokens(f);
    if (!ext.test(f.toLowerCase()) && !t.includes(k)) return false;
    return qualifiers.every((q) => t.some((w) => w === q || (q.length >= 4 && w.startsWith(q))));
  });
  return fits.length === 1 ? fits[0]! : null;
}

/** The artifacts a clause describes without a file name, each resolved against the outputs (or null). */
function describedIn(clause: string, outputs: string[]): { phrase: string; file: string | null }[] {
  const bare = clause.replace(FILE, ' ');
  return [...bare.matchAll(DESCRIBED)].map((m) => {
    const qualifiers = m[1]!
      .trim()
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w && !NOT_QUALIFIER.test(w));
    const kind = m[2]!.toLowerCase();
    return { phrase: [...qualifiers, kind].join(' '), file: describedArtifact(qualifiers, kind, outputs) };
  });
}

/**
 * Classifies one zero condition into the parts heldout can enforce and the rest. `outputs`: the interface's output
 * files, against which an artifact named by description ("no `a.json` or final screenshot") is resolved; one that
 * cannot be resolved leaves the condition to the judge, never silently ungated.
 */
export function classifyGate(text: string, outputs: string[] = []): GateBullet {
  const mechanical: GateBullet['mechanical'] = [];
  if (/launch|crash|non-?zero|exit code|cannot (?:run|start)/i.test(text)) mechanical.push('exit');
  const sec = /(\d+(?:\.\d+)?)\s*(?:-\s*)?(?:seconds|secs?\b|s\b)/i.exec(text);
  const mem = /(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB)\b/i.exec(text);
  if (sec || mem || /times? out|timeout|over time|memory/i.test(text)) mechanical.push('budget');
  if (/\bjsonl\b/i.test(text) && PARSE.test(text)) mechanical.push('jsonl');
  if (/omits? (?:a |any )?(?:target )?prediction/i.test(text)) mechanical.push('rows');
  const noTargets =
    /produces no (?:target|required) artifacts|no (?:target|required) artifacts? (?:is |are )?produced/i.test(text);
  const required: string[] = [];
  const collective: string[] = [];
  const parseable: string[] = [];
  const unresolved: string[] = [];
  if (MISSING.test(text) || PARSE.test(text)) {
    const clauses = text.split(/;|,\s*or\s+|\.\s+/);
    for (const clause of clauses) {
      const described = describedIn(clause, outputs);
      for (const d of described) if (d.file === null) unresolved.push(d.phrase);
      const named = unique([...clause.matchAll(FILE)].map((m) => m[1]!).filter((f) => !/[<>]/.test(f)));
      // A described artifact in a clause about its validity ("a corrupt … patch") is held to parse, not required.
      const seen = described.flatMap((d) => (d.file ? [d.file] : []));
      const toParse = seen.length > 0 && !MISSING.test(clause) && PARSE.test(clause);
      if (!toParse) named.push(...seen.filter((f) => !named.includes(f)));
      if (/collectively|all (?:of them )?(?:are )?absent|none of/i.test(clause)) collective.push(...named);
      else if (MISSING.test(clause) || MISSING.test(text)) required.push(...named);
      else if (PARSE.test(clause)) parseable.push(...named);
      if (toParse) parseable.push(...seen);
    }
  }
  if (required.length || collective.length) mechanical.push('artifacts');
  if (noTargets) mechanical.push('artifacts');
  const memoryMb = mem ? Math.round(Number(mem[1]) * (/^G/i.test(mem[2]!) ? 1024 : 1)) : null;
  const judged =
    JUDGED.test(text.replace(FILE, ' ')) ||
    mechanical.length === 0 ||
    unresolved.length > 0 ||
    parseable.some((f) => !required.includes(f));
  return {
    text,
    mechanical: unique(mechanical) as GateBullet['mechanical'],
    required: unique(required),
    collective: unique(collective).filter((f) => !required.includes(f)),
    parseable: unique(parseable).filter((f) => !required.includes(f)),
    judged,
    seconds: sec ? Number(sec[1]) : null,
    memoryMb,
    noTargets,
    unresolved: unique(unresolved),
  };
}

/** `{id: weight}` (or `{dimensions: …}`, or a list of `{name|id, weight|points|max}`) → entries, or null. */
export function dimensionEntries(json: unknown): [string, number][] | null {
  const obj =
    json && typeof json === 'object' && !Array.isArray(json) && 'dimensions' in json
      ? (json as { dimensions: unknown }).dimensions
      : json;
  const out: [string, number][] = [];
  if (Array.isArray(obj)) {
    for (const e of obj) {
      const name = e?.name ?? e?.id ?? e?.title;
      const weight = Number(e?.weight ?? e?.points ?? e?.max);
      if (typeof name !== 'string' || !Number.isFinite(weight)) return null;
      out.push([name, weight]);
    }
    return out;
  }
  if (obj && typeof obj === 'object') {
    for (const [k, v] of Object.entries(obj)) {
      const w =
        typeof v === 'number'
          ? v
          : Number((v as { weight?: unknown; max?: unknown })?.weight ?? (v as { max?: unknown })?.max);
      if (!Number.isFinite(w)) return null;
      out.push([k, w]);
    }
    return out;
  }
  return null;
}

/** The JSON's dimensions with texts from the Markdown: by name, else by position when the weights agree. */
function fromJson(entries: [string, number][], md: string | null, notes: string[]): WeightedDimension[] {
  const cands = md ? dimensionCandidates(md) : [];
  const byName = (name: string) => {
    for (const c of cands) {
      const hit = c.dimensions.find((d) => sameName(d.title, name) || sameName(d.title, name.replace(/_/g, ' ')));
      if (hit) return hit;
    }
    return null;
  };
  const sameWeights = cands.find(
    (c) => c.dimensions.length === entries.length && c.dimensions.every((d, i) => d.weight === entries[i]![1]),
  );
  const named = entries.map(([n]) => byName(n));
  if (named.every(Boolean)) {
    return entries.map(([name, weight], i) => {
      if (named[i]!.weight !== weight)
        notes.push(
          `dimension ${name}: the JSON weighs it ${weight}, the rubric ${named[i]!.weight}; the JSON's weight was used`,
        );
      return { title: name, weight, body: named[i]!.body };
    });
  }
  if (sameWeights) {
    notes.push(
      `the dimensions JSON names (${entries.map(([n]) => n).join(', ')}) differ from the rubric's (${sameWeights.dimensions.map((d) => d.title).join(', ')}); paired by position, since the weights agree in order`,
    );
    return entries.map(([name, weight], i) => ({
      title: name,
      weight,
      body: `(the rubric's "${sameWeights.dimensions[i]!.title}")\n${sameWeights.dimensions[i]!.body}`,
    }));
  }
  if (md)
    notes.push(
      "the rubric's dimensions could not be matched to the dimensions JSON by name or by position; every dimension's judge text is the whole rubric",
    );
  return entries.map(([name, weight], i) => ({ title: name, weight, body: named[i]?.body ?? md ?? '' }));
}

/**
 * Plans the rubric: dimensions from `dimensionsJson` when given (the editing contract), else from the Markdown's
 * weighted headings below the title or its weight table (whichever sums to 100); zero rules, ceilings and the
 * statements limiting them from everywhere else in the Markdown.
 */
export function planRubric(rubricMd: string | null, dimensionsJson: unknown, outputs: string[] = []): RubricPlan {
  const notes: string[] = [];
  const problems: string[] = [];
  let weighted: WeightedDimension[] = [];
  let dimensionSource = '';
  if (dimensionsJson !== undefined) {
    const entries = dimensionEntries(dimensionsJson);
    if (entries === null) problems.push('the dimensions JSON is not {name: weight} (nor a list of {name, weight})');
    else {
      weighted = fromJson(entries, rubricMd, notes);
      dimensionSource = 'the dimensions JSON';
    }
  } else if (rubricMd !== null) {
    const chosen = chooseDimensions(rubricMd);
    if ('found' in chosen) problems.push(`no set of weighted dimensions sums to 100: found ${chosen.found}`);
    else {
      weighted = chosen.dimensions;
      dimensionSource = chosen.source;
      for (const o of chosen.others)
        notes.push(
          `the rubric's ${o.source} (${o.dimensions.length} entries, sum ${o.sum}) were not taken as dimensions`,
        );
    }
  }
  const sum = weighted.reduce((s, d) => s + d.weight, 0);
  if (weighted.length > 0 && Math.abs(sum - 100) > 1e-9) problems.push(`dimension weights sum to ${sum}, not 100`);

  const used = new Set<string>();
  const dimensions = weighted.map((d, i) => {
    const base = /^[a-z][a-z0-9_]*$/.test(d.title) ? d.title : slug(d.title, `dimension-${i + 1}`);
    let id = base;
    for (let k = 2; used.has(id); k++) id = `${base}-${k}`;
    used.add(id);
    return { id, title: d.title, weight: d.weight, text: d.body.trim() ? d.body.trim() : null };
  });

  const scan = rubricMd
    ? scanRules(
        rubricMd,
        weighted.map((d) => d.title),
      )
    : null;
  const gates = (scan?.zero ?? []).map((z: ZeroCondition) => classifyGate(z.text, outputs));
  if (rubricMd && gates.length === 0)
    notes.push(
      "the rubric states no zero-score condition; only heldout's standard gates (launch, exit code, budgets) apply",
    );
  const guidance = [...(scan?.guidance ?? []), ...(scan?.negative ?? [])].join('\n');
  return {
    dimensions,
    dimensionSource,
    gates,
    negative: scan?.negative ?? [],
    ceilings: scan?.ceilings ?? [],
    zeroFoundIn: scan?.foundIn ?? [],
    guidance,
    notes,
    problems,
  };
}
