import { bullets, rubricDimensions, sameName, sections, slug, type WeightedSection } from './markdown.js';

/**
 * Turning an AgentSWE rubric (Markdown, optionally with a `{name: weight}` dimensions file) into heldout's rubric
 * pieces: judged dimensions, mechanical zero-gates and the rest of the zero-gates as a judged total ceiling. Pure.
 */

export interface PlannedDimension {
  id: string;
  title: string;
  weight: number;
  /** The rubric text the judge applies (the dimension's section), or null when the rubric has none. */
  text: string | null;
}

/** One zero-gate bullet of the rubric and what heldout makes of it. */
export interface GateBullet {
  text: string;
  /** Mechanical parts heldout enforces deterministically. */
  mechanical: ('exit' | 'budget' | 'artifacts')[];
  /** Artifact files the bullet requires present and parseable. */
  required: string[];
  /** Artifact files the bullet names only collectively ("all absent"). */
  collective: string[];
  /** True when part of the bullet needs judgment (or harness observations heldout does not have). */
  judged: boolean;
  seconds: number | null;
  memoryMb: number | null;
}

export interface RubricPlan {
  dimensions: PlannedDimension[];
  gates: GateBullet[];
  /** Rubric text outside dimensions and gates that frames every judgment (preamble, general scoring rules). */
  guidance: string;
  notes: string[];
  problems: string[];
}

const FILE = /`?([\w./-]+\.(?:json|csv|md|html|txt|pdf|patch|diff|xml|yaml|yml))`?/g;
const JUDGED =
  /violat|credential|network|hidden|permission|provider budget|meaningful|transcript|different artifact|re-?execut|auditab|leak|forbidden|immutab|fabricat/i;

/** Classifies one zero-gate bullet. */
export function classifyGate(text: string): GateBullet {
  const mechanical: GateBullet['mechanical'] = [];
  if (/launch|crash|exit|non-?zero/i.test(text)) mechanical.push('exit');
  const sec = /(\d+(?:\.\d+)?)\s*(?:-\s*)?(?:seconds|secs?\b|s\b)/i.exec(text);
  const mem = /(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB)\b/i.exec(text);
  if (sec || mem || /over time|timeout|memory/i.test(text)) mechanical.push('budget');
  const files = [...new Set([...text.matchAll(FILE)].map((m) => m[1]!))];
  const required: string[] = [];
  const collective: string[] = [];
  if (
    files.length > 0 &&
    /absent|missing|unparseable|parseable|not produced|no .*produced|invalid|malformed/i.test(text)
  ) {
    mechanical.push('artifacts');
    const clauses = text.split(/;|,\s*or\s+|\.\s+/);
    for (const clause of clauses) {
      const named = [...clause.matchAll(FILE)].map((m) => m[1]!);
      if (named.length === 0) continue;
      if (/collectively|all (?:of them )?absent|none of/i.test(clause)) collective.push(...named);
      else if (/absent|missing|unparseable|parseable|not produced|invalid|malformed|header/i.test(clause))
        required.push(...named);
    }
  }
  const memoryMb = mem ? Math.round(Number(mem[1]) * (/^G/i.test(mem[2]!) ? 1024 : 1)) : null;
  const judged = JUDGED.test(text) || mechanical.length === 0;
  return {
    text,
    mechanical,
    required: [...new Set(required)],
    collective: [...new Set(collective)].filter((f) => !required.includes(f)),
    judged,
    seconds: sec ? Number(sec[1]) : null,
    memoryMb,
  };
}

/**
 * Plans the rubric: weights from `dimensionsJson` when given (else from the Markdown's weighted headings or weight
 * table), judge texts from the Markdown's matching sections, gates from its section whose heading names gates.
 */
export function planRubric(rubricMd: string | null, dimensionsJson: unknown): RubricPlan {
  const notes: string[] = [];
  const problems: string[] = [];
  const fromMd: WeightedSection[] = rubricMd ? rubricDimensions(rubricMd) : [];
  let weighted: { title: string; weight: number; text: string | null }[] = [];

  if (dimensionsJson !== undefined) {
    const entries = dimensionEntries(dimensionsJson);
    if (entries === null) problems.push('the dimensions JSON is not {name: weight} (nor a list of {name, weight})');
    else {
      weighted = entries.map(([name, weight]) => {
        const sec = fromMd.find((s) => sameName(s.title, name));
        if (sec && sec.weight !== weight)
          notes.push(
            `dimension "${name}": the dimensions JSON weighs it ${weight}, the rubric heading ${sec.weight}; the JSON's weight was used`,
          );
        return { title: name, weight, text: sec?.body ?? null };
      });
      for (const s of fromMd) {
        if (!entries.some(([n]) => sameName(n, s.title)))
          notes.push(`rubric section "${s.title}" (${s.weight}) has no entry in the dimensions JSON and was not used`);
      }
    }
  } else {
    weighted = fromMd.map((s) => ({ title: s.title, weight: s.weight, text: s.body }));
  }

  if (weighted.length === 0 && problems.length === 0) {
    problems.push(
      'no weighted dimensions: the rubric has no headings like "## Task completion (36)" or "## 1. Task completion — 36 points", nor a weight table, and there is no dimensions JSON',
    );
  }
  const sum = weighted.reduce((s, d) => s + d.weight, 0);
  if (weighted.length > 0 && Math.abs(sum - 100) > 1e-9) problems.push(`dimension weights sum to ${sum}, not 100`);

  const used = new Set<string>();
  const dimensions = weighted.map((d, i) => {
    let id = slug(d.title, `dimension-${i + 1}`);
    for (let k = 2; used.has(id); k++) id = `${slug(d.title, 'dimension')}-${k}`;
    used.add(id);
    if (d.text === null)
      notes.push(`dimension "${d.title}" has no rubric section; its judge item carries only its name and weight`);
    return { id, title: d.title, weight: d.weight, text: d.text };
  });

  const all = rubricMd ? sections(rubricMd) : [];
  const gateSection = all.find((s) => /gate/i.test(s.heading));
  const gates = gateSection ? bullets(gateSection.body).map(classifyGate) : [];
  if (rubricMd && !gateSection)
    notes.push("the rubric has no zero-gate section; only heldout's standard gates (launch, exit code, budgets) apply");

  // Guidance: the rubric's text before its first heading below the title, and the gate section's non-bullet prose.
  const guidance: string[] = [];
  if (rubricMd) {
    const top = all[0];
    const pre =
      top && top.level === 1 ? top.body.split(/\n#{2,6}\s/)[0]!.trim() : rubricMd.split(/\n#{1,6}\s/)[0]!.trim();
    if (pre) guidance.push(pre);
    if (gateSection) {
      const prose = gateSection.body
        .split(/\n\s*\n/)
        .filter((p) => !/^\s*[-*+]\s/.test(p) && !/:\s*$/.test(p.trim()))
        .join('\n\n')
        .trim();
      if (prose) guidance.push(prose);
    }
  }
  return { dimensions, gates, guidance: guidance.join('\n\n'), notes, problems };
}

function dimensionEntries(json: unknown): [string, number][] | null {
  const obj =
    json && typeof json === 'object' && !Array.isArray(json) && 'dimensions' in json
      ? (json as { dimensions: unknown }).dimensions
      : json;
  if (Array.isArray(obj)) {
    const out: [string, number][] = [];
    for (const e of obj) {
      const name = e?.name ?? e?.id ?? e?.title;
      const weight = Number(e?.weight ?? e?.points ?? e?.max);
      if (typeof name !== 'string' || !Number.isFinite(weight)) return null;
      out.push([name, weight]);
    }
    return out;
  }
  if (obj && typeof obj === 'object') {
    const out: [string, number][] = [];
    for (const [k, v] of Object.entries(obj)) {
      const w = typeof v === 'number' ? v : Number((v as { weight?: unknown })?.weight);
      if (!Number.isFinite(w)) return null;
      out.push([k, w]);
    }
    return out;
  }
  return null;
}
