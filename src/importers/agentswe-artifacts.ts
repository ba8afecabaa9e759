import type { AgentSweFamily } from './agentswe-layout.js';
import type { GateBullet } from './agentswe-rubric.js';
import { formatOf } from './commission-fields.js';
import { codeBlocks, sections } from './markdown.js';
import { blocks } from './markdown-blocks.js';

/** An artifact as commission.yaml declares it. */
export interface ArtifactDecl {
  path: string;
  format: string;
  required: boolean;
  group?: string;
  schema?: Record<string, unknown>;
}

const PATHLIKE = /^[\w][\w./-]*\.[a-z0-9]{1,5}$/i;
const OUTPUT_HEADING = /required|artifact|output|deliver|bundle|tree/i;
// The Builder's delivery of an editing task, read beside the patch (not a case output).
const EDITING_DELIVERY = new Set(['solution.patch', 'edit_report.json', 'run_report.json']);

/**
 * The output files the interface document names: fenced `<output_dir>/…` lines and output trees, and list items
 * that open with a file name under a heading about the required output. Directories are returned apart.
 */
export function interfaceOutputs(iface: string): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  const add = (p: string) => {
    const clean = p.replace(/^<[^>]+>\//, '').replace(/^\.\//, '');
    if (/\/?\.\.\.$|\/$/.test(clean)) dirs.push(clean.replace(/\/?\.\.\.$/, '/'));
    else if (PATHLIKE.test(clean) && !clean.includes('<')) files.push(clean);
  };
  for (const b of codeBlocks(iface)) {
    const lines = b.code.split(/\r?\n/).filter((l) => l.trim() !== '');
    for (const l of lines) {
      const m = /^\s*<[\w-]*out[\w-]*>\/(\S+)\s*$/i.exec(l);
      if (m) add(m[1]!);
    }
    if (lines.length >= 2 && /output[^/]*\/\s*$/i.test(lines[0]!)) {
      for (const l of lines.slice(1)) {
        const m = /^([\s|│`├└]*?)(?:\|--|`--|├──|└──|[-*])\s*(.+?)\s*(?:#.*)?$/.exec(l);
        if (m && m[1]!.replace(/\s+$/, '').length === 0) add(m[2]!.trim());
      }
    }
  }
  for (const s of sections(iface)) {
    if (!OUTPUT_HEADING.test(s.heading)) continue;
    const own = s.body.split(/\n(?=#{1,6}\s)/)[0]!;
    for (const b of blocks(own)) {
      if (!b.item) continue;
      const first = /^\s*(?:\*\*)?`([^`]+)`/.exec(b.text)?.[1];
      if (first) add(first);
    }
  }
  return { files: [...new Set(files)], dirs: [...new Set(dirs)] };
}

/**
 * The artifact gates: the interface's outputs, required when a zero rule says their absence is 0 (and in an
 * any-of group when the rule names them only together, or says "no target artifacts"); an optimization task's
 * `predictions.jsonl` (one JSON object per row, each with its `id`) and run report.
 */
export function artifactsFrom(
  family: AgentSweFamily,
  iface: string,
  gates: GateBullet[],
  note: (text: string) => void,
): ArtifactDecl[] {
  if (family === 'optimization') {
    const example = codeBlocks(iface)
      .map((b) => {
        try {
          return JSON.parse(b.code) as Record<string, unknown>;
        } catch {
          return null;
        }
      })
      .find((o) => o && typeof o === 'object' && 'id' in o);
    const keys = example ? Object.keys(example) : ['id'];
    note(
      `artifacts: predictions.jsonl (${gates.some((g) => g.mechanical.includes('jsonl')) ? 'the zero rule "emits malformed JSONL" → ' : ''}format jsonl: every line one JSON object with ${keys.map((k) => `"${k}"`).join(', ')}${example ? ', as the interface example shows' : ''}) and .run/run_report.json (the run directory's report; not gated: "a missing nonessential diagnostic file is not automatically zero")`,
    );
    return [
      {
        path: 'predictions.jsonl',
        format: 'jsonl',
        required: true,
        schema: { type: 'object', required: keys, properties: { id: { type: 'string' } } },
      },
      { path: '.run/run_report.json', format: 'json', required: false },
    ];
  }
  const { files, dirs } = interfaceOutputs(iface);
  const listed = family === 'editing' ? files.filter((f) => !EDITING_DELIVERY.has(f)) : files;
  const required = new Set(gates.flatMap((g) => g.required));
  const decls: ArtifactDecl[] = [];
  const add = (p: string, req: boolean, group?: string) => {
    const had = decls.find((d) => d.path === p);
    if (had) {
      had.required ||= req;
      if (group && !had.group) had.group = group;
      return;
    }
    decls.push({ path: p, format: formatOf(p), required: req, ...(group ? { group } : {}) });
  };
  for (const f of listed) add(f, required.has(f));
  for (const f of required) add(f, true);
  gates.forEach((g, i) => {
    const members = g.collective.length ? g.collective : g.noTargets ? listed : [];
    if (members.length < 2) return;
    const group = `zero-rule-${i + 1}`;
    for (const f of members) if (!required.has(f)) add(f, true, group);
    note(
      `artifacts ${members.join(', ')}: one any-of gate (group ${group}) — the zero rule "${g.text}" holds only when all of them are absent; a present one must parse`,
    );
  });
  const unvalidated = [...new Set(gates.flatMap((g) => g.parseable))].filter(
    (f) => !decls.some((d) => d.path === f && d.required),
  );
  if (unvalidated.length)
    note(
      `a zero rule requires ${unvalidated.join(', ')} parseable when present; heldout validates an artifact's format only when it is gated, so that part is left to the judged zero ceiling`,
    );
  if (dirs.length)
    note(
      `output directories ${dirs.join(', ')} are not declared as artifacts (their files vary per case); the judge sees them`,
    );
  const optional = decls.filter((d) => !d.required).map((d) => d.path);
  if (optional.length)
    note(`artifacts declared but not gated (the rubric deducts for them rather than zeroing): ${optional.join(', ')}`);
  return decls;
}
