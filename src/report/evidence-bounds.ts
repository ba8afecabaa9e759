import type { CaseSummary } from './schema.js';

/**
 * How much evidence text one field of a case keeps in summary.json (and so in index.html's drill-down): the figures
 * are always whole, but an item's evidence, a reason, a judge's assessment may be a whole program's output, and at
 * 10,000 executions those texts would be most of the document. The case's record under `cases/` (written by the run
 * session, `<case>-t<trial>.meta.json`) keeps every text in full.
 */
export const EVIDENCE_CHARS = 2000;
/** The bound of one entry of a list of texts (major errors, contradicted claims, failed test names). */
export const LIST_ITEM_CHARS = 500;

/** The tail of `text` when it is longer than `max`, after a line saying how much was cut and where the rest is. */
export function boundText(text: string, max: number, record: string | null): string {
  if (text.length <= max) return text;
  const where = record ? `the full text is in ${record}` : "the full text is in the case's record under cases/";
  const note = `[… ${text.length - max} characters cut; ${where}]\n`;
  // Never split a surrogate pair: the tail starts on a whole character.
  let from = text.length - max;
  const c = text.charCodeAt(from);
  if (c >= 0xdc00 && c <= 0xdfff) from++;
  return note + text.slice(from);
}

function boundList(xs: string[], record: string | null): string[] {
  let out: string[] | null = null;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i].length <= LIST_ITEM_CHARS) continue;
    out ??= xs.slice();
    out[i] = boundText(xs[i], LIST_ITEM_CHARS, record);
  }
  return out ?? xs;
}

/** Whether any text of the case exceeds its bound (the common case is no: then nothing is copied). */
function needsBounds(c: CaseSummary): boolean {
  const over = (s: string | null | undefined) => s !== null && s !== undefined && s.length > EVIDENCE_CHARS;
  const overList = (xs: string[] | undefined) => xs?.some((x) => x.length > LIST_ITEM_CHARS) ?? false;
  if (over(c.reason) || over(c.stderrTail) || overList(c.claimsContradicted)) return true;
  for (const d in c.items) for (const it of c.items[d]) if (over(it.evidence)) return true;
  for (const o of c.outcomes) if (over(o.evidence)) return true;
  if (c.judge && (over(c.judge.assessment) || overList(c.judge.majorErrors))) return true;
  if (c.editing && (over(c.editing.evidence) || overList(c.editing.failedTests))) return true;
  return false;
}

/**
 * The case with every evidence text bounded (EVIDENCE_CHARS, list entries LIST_ITEM_CHARS), keeping each tail, and
 * `record` set to where the full texts are (`recordOf(id, trial)`, asked only then) when something was cut. The case
 * itself is returned when nothing is over.
 */
export function boundEvidence(c: CaseSummary, recordOf?: (id: string, trial: number) => string): CaseSummary {
  if (!needsBounds(c)) return c;
  const record = recordOf ? recordOf(c.id, c.trial) : null;
  const b = (s: string) => boundText(s, EVIDENCE_CHARS, record);
  const items: CaseSummary['items'] = {};
  for (const d in c.items) items[d] = c.items[d].map((it) => ({ ...it, evidence: b(it.evidence) }));
  return {
    ...c,
    reason: c.reason === null ? null : b(c.reason),
    items,
    outcomes: c.outcomes.map((o) => ({ ...o, evidence: b(o.evidence) })),
    judge: c.judge && {
      ...c.judge,
      assessment: b(c.judge.assessment),
      majorErrors: boundList(c.judge.majorErrors, record),
    },
    stderrTail: b(c.stderrTail),
    claimsContradicted: boundList(c.claimsContradicted, record),
    ...(c.editing
      ? {
          editing: {
            ...c.editing,
            evidence: b(c.editing.evidence),
            ...(c.editing.failedTests ? { failedTests: boundList(c.editing.failedTests, record) } : {}),
          },
        }
      : {}),
    ...(record ? { record } : {}),
  };
}
