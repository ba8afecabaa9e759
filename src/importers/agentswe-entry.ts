import type { AgentSweFamily } from './agentswe-layout.js';
import { codeBlocks, sections } from './markdown.js';
import { asObject, asText } from './values.js';

/**
 * The entry command, from the package's own interface (never invented): the contract's `evaluation.cli`, else the
 * launch command in a fenced block of the interface document. Its `<…>` placeholders become heldout's; a command
 * with one heldout cannot fill is refused with the reason. Pure.
 */

/** A `<name>` placeholder by its name (first match wins), then by the flag it follows. */
const BY_NAME: [RegExp, string][] = [
  [/^predictions(?:\.jsonl)?$/, '{output}/predictions.jsonl'],
  [/\.jsonl$/, '{case}/assets/input.jsonl'],
  [/input\.md$|^(?:case[-_/])?input$|case-input/, '{input}'],
  [/^run[-_]?dir$/, '{run}'],
  [/out(?:put)?[-_]?dir$|^output$|^out$|output-dir|^delivery-directory$|^capsule_dir$/, '{output}'],
  [/^case-(?:request|task)$/, '"$(cat {input})"'],
  [/-source$|^repository$|^repo$|^product$/, '{delivery}'],
];
const BY_FLAG: [RegExp, string][] = [
  [/^input$/, '{input}'],
  [/^out(?:put)?(?:-dir)?$/, '{output}'],
  [/^run(?:-dir)?$/, '{run}'],
];

/** Rewrites `<…>` placeholders to heldout's; returns the command and the ones it could not map. */
export function normalizeEntry(command: string): { command: string; unknown: string[] } {
  const unknown: string[] = [];
  const joined = command
    .replace(/\\\r?\n\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const out = joined.replace(
    /(?:(--?([\w-]+))(\s+|=))?<([^<>]+)>/g,
    (m, flag?: string, fname?: string, sep?: string, name?: string) => {
      const n = name!.trim().toLowerCase();
      const hit =
        BY_NAME.find(([re]) => re.test(n)) ??
        (fname ? BY_FLAG.find(([re]) => re.test(fname.toLowerCase())) : undefined);
      if (!hit) {
        unknown.push(m.trim());
        return m;
      }
      return `${flag ? `${flag}${sep}` : ''}${hit[1]}`;
    },
  );
  return { command: out, unknown };
}

const INSTALL = /^(?:python3?\s+-m\s+pip|pip3?|npm|pnpm|yarn|conda|cargo\s+(?:build|fetch)|make|uv|apt)\b|\binstall\b/;
const LAUNCH = /^(?:python3?|node|bash|sh|\.\/|codex|npx|deno|java|ruby|go\s+run)\b/;

/** Every command line of the interface's fenced shell blocks, continuation lines joined, with its heading. */
export function interfaceCommands(iface: string): { line: string; heading: string }[] {
  const out: { line: string; heading: string }[] = [];
  const secs = sections(iface);
  for (const b of codeBlocks(iface)) {
    if (b.lang && !/^(bash|sh|shell|console|text|)$/i.test(b.lang)) continue;
    const heading = [...secs].reverse().find((s) => s.body.includes(b.code.trim().slice(0, 60)))?.heading ?? '';
    for (const raw of b.code.replace(/\\\r?\n\s*/g, ' ').split(/\r?\n/)) {
      const line = raw.replace(/^\s*\$\s+/, '').trim();
      if (line && LAUNCH.test(line)) out.push({ line, heading });
    }
  }
  return out;
}

export type EntryResult = { command: string; source: string; notes: string[] } | { refused: string };

/**
 * The entry of an imported task. Creation and optimization: the one uniform launch command. Editing: the Builder
 * delivers a patch, and what runs per case is the product driven by the package's lower agent; the entry is the
 * product command of the interface when exactly one has placeholders heldout fills, else the import is refused
 * (with the candidates named) unless `override` gives one.
 */
export function entryFor(
  family: AgentSweFamily,
  iface: string,
  contract: Record<string, unknown> | null,
  override: string | undefined,
): EntryResult {
  const notes: string[] = [];
  if (override !== undefined) {
    const { command, unknown } = normalizeEntry(override);
    if (unknown.length) return { refused: `--entry keeps placeholders heldout cannot fill: ${unknown.join(', ')}` };
    return { command, source: 'the --entry option (user-supplied, not the package)', notes };
  }
  const cli = asText(asObject(contract?.evaluation)?.cli);
  const commands = interfaceCommands(iface);
  const installs = commands.filter((c) => INSTALL.test(c.line));
  for (const c of installs)
    notes.push(
      `the interface's setup command \`${c.line}\` is not run by heldout: the sandbox image must already hold what it installs`,
    );
  const launches = commands.filter((c) => !INSTALL.test(c.line));
  if (family !== 'editing') {
    const raw =
      cli ?? launches.find((c) => /--input\b/.test(c.line) && /--output\b/.test(c.line))?.line ?? launches[0]?.line;
    if (!raw)
      return {
        refused:
          'no launch command: neither task_contract.json evaluation.cli nor a fenced command in the interface document (02_*.md); heldout does not invent one',
      };
    const { command, unknown } = normalizeEntry(raw);
    if (unknown.length)
      return { refused: `the launch command \`${raw}\` has placeholders heldout cannot fill: ${unknown.join(', ')}` };
    return { command, source: cli ? 'task_contract.json evaluation.cli' : 'the interface document (02)', notes };
  }
  // Editing: the Builder's own invocation (`--repository`, `--dev-cases`, a "Builder" heading) is not a case entry.
  const product = launches.filter((c) => !/--repository\b|--dev-cases\b/.test(c.line) && !/builder/i.test(c.heading));
  const mapped = product
    .map((c) => ({ c, n: normalizeEntry(c.line) }))
    .filter((x) => x.n.unknown.length === 0 && /\{(input|case)\}|"\$\(cat/.test(x.n.command));
  if (mapped.length === 1) return { command: mapped[0]!.n.command, source: 'the interface document (02)', notes };
  const listed = product.map((c) => `\`${c.line}\``).join('; ') || '(none)';
  return {
    refused:
      `no runnable per-case command: an AgentSWE editing case is run by the package's lower agent (a model-driven loop ` +
      `in its evaluator harness) driving the patched product, and heldout cannot run that loop. The interface's product ` +
      `commands are ${listed}${mapped.length > 1 ? ' (several could be the entry)' : '; none reads the case input through placeholders heldout fills'}. ` +
      `Import with --entry "<command>" to name the per-case command that runs in the patched tree ({input} {output} {run} {case} {delivery})`,
  };
}
