/**
 * What became of every file of the source package: the table `IMPORT-NOTES.md` ends with and `--json` returns, so
 * nothing is dropped silently and a test can prove it. Files no step claimed get a disposition from where they sit
 * in the AgentSWE layout (runner glue, environment recipe, evaluator code, …), never a blank. Pure.
 */

/** What a source file became (the first column after the path). */
export type Became =
  | 'requirement'
  | 'case input'
  | 'asset'
  | 'truth → judge context'
  | 'truth → check'
  | 'rubric'
  | 'gate'
  | 'ceiling'
  | 'budget'
  | 'entry'
  | 'harness → service'
  | 'product pin'
  | 'starter'
  | 'kept for the judge'
  | 'kept in source/'
  | 'superseded'
  | 'unmapped';

export interface AccountRow {
  source: string;
  became: Became;
  detail: string;
}

/** Collects dispositions; a file recorded twice keeps its first disposition and both details. */
export class FileAccount {
  private readonly rows = new Map<string, AccountRow>();

  record(source: string, became: Became, detail: string): void {
    const had = this.rows.get(source);
    if (!had) this.rows.set(source, { source, became, detail });
    else if (!had.detail.includes(detail)) had.detail = `${had.detail}; ${detail}`;
  }

  has(source: string): boolean {
    return this.rows.has(source);
  }

  /** Every file of the package, sorted, each with its disposition (`fallback` for those no step recorded). */
  table(allFiles: string[], fallback: (rel: string) => Omit<AccountRow, 'source'>): AccountRow[] {
    return [...new Set(allFiles)].sort().map((f) => this.rows.get(f) ?? { source: f, ...fallback(f) });
  }
}

/** The disposition of a file by its place in the AgentSWE layout, for files no import step used. */
export function layoutDisposition(rel: string, selected: { profile: string | null; lang: string | null }) {
  const row = (became: Became, detail: string) => ({ became, detail });
  const profile = /^profiles\/([^/]+)\//.exec(rel)?.[1];
  if (profile && profile !== selected.profile)
    return row('unmapped', `the ${profile} profile overlay, not selected (import with --profile ${profile})`);
  const lang = /^lang\/([^/]+)\//.exec(rel)?.[1];
  if (lang && lang !== selected.lang)
    return row('unmapped', `the ${lang} language overlay, not selected (import with --lang ${lang})`);
  if (/\.pre-\d{4}-[\w-]+$/.test(rel))
    return row('unmapped', 'a pre-hardening backup; the current text beside it was imported');
  if (/^adapter\//.test(rel))
    return row(
      'unmapped',
      "the AgentSWE runner's Harbor glue (compose templates, candidate runner, scoring scripts): heldout's sandbox, gateway and grading take its place",
    );
  if (/^env\//.test(rel))
    return row(
      'kept in source/',
      "the task's environment recipe (Conda/pip lock, build script): heldout runs the image the commission names; build one from it for deliveries that need these packages",
    );
  if (/(^|\/)meta\//.test(rel))
    return row('kept in source/', 'construction notes of the package: not part of its contract');
  if (/(^|\/)agentloop\//.test(rel))
    return row(
      'unmapped',
      'the lower-agent loop (launcher, broker, hidden-case runner): evaluator machinery heldout cannot drive',
    );
  if (/(^|\/)harbor\//.test(rel))
    return row('unmapped', 'the AgentSWE control plane (formal one-stop run, acceptance)');
  if (/^a0\//.test(rel))
    return row('product pin', 'the product pin and its fetch: see the editing section of these notes');
  if (/(^|\/)hidden_tests?\//.test(rel))
    return row(
      'unmapped',
      "a case's hidden tests, run by the package's evaluator on the delivery's output: heldout does not stage evaluator files beside a delivery, so the dimension they inform is judged (the tests stay in the source package)",
    );
  if (/(^|\/)(evaluate_case|evaluate_suite|validate_[\w]+|verify_score|score_[\w]+)\.py$/.test(rel))
    return row(
      'unmapped',
      "the package's own per-case evaluator or validator (Python reading evaluator-owned files): heldout's gates, checks and judge take its place",
    );
  if (/\.(py|mjs|js|ts|sh|rs|go)$/.test(rel))
    return row('unmapped', 'evaluator or runner code heldout does not run (its decisions are judged or noted above)');
  if (/\.(md|json|txt|csv|ya?ml)$/i.test(rel))
    return row('unmapped', 'text outside the parts of the contract heldout reads; not copied');
  return row('unmapped', 'a binary or other file with no heldout counterpart');
}

/** The Markdown table of the account. */
export function accountMarkdown(rows: AccountRow[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '| source file | became | detail |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| \`${esc(r.source)}\` | ${r.became} | ${esc(r.detail)} |`),
  ].join('\n');
}
