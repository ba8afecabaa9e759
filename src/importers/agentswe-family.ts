import { readFileSync } from 'node:fs';
import type { FileAccount } from './agentswe-account.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import { importProduct, productPin, productTestCommand } from './agentswe-product.js';
import type { RequirementTexts } from './agentswe-requirement.js';
import { sentences } from './agentswe-rules.js';
import { codeBlocks } from './markdown.js';
import { blocks, codeSpans } from './markdown-blocks.js';
import type { PackageDraft } from './package-writer.js';
import { asObject, asText } from './values.js';

const GLOB = /^[\w.@-][\w./@*-]*(?:\/\*\*|\/)$|^[\w.@-][\w./@-]*\/\*\*\/[\w.*-]+$/;
const TEST_COMMAND =
  /\b(?:npm (?:ci|test|run [\w:-]+)|pnpm [\w:-]+|npx [\w-]+|pytest|tsc --noEmit|cargo (?:test|build)|vitest|make test)\b/;

/** Path rules the requirements state ("Modify only `aider/**` …", "changes paths outside `plugins/x/**`"). */
export function patchScope(text: string): { allowed: string[]; forbidden: string[]; from: string[] } {
  const allowed: string[] = [];
  const forbidden: string[] = [];
  const from: string[] = [];
  for (const b of blocks(text)) {
    for (const s of sentences(b.text)) {
      const globs = codeSpans(s).filter((c) => GLOB.test(c));
      if (globs.length === 0) continue;
      const norm = (g: string) => (g.endsWith('/') ? `${g}**` : g);
      if (/\bmodify only\b|\bonly (?:change|edit|touch|modify)\b|\bconfined to\b|\boutside\b/i.test(s)) {
        allowed.push(...globs.map(norm));
        from.push(s);
      } else if (/\b(?:do not|must not|never) (?:modify|edit|change|touch|delete)\b/i.test(s)) {
        forbidden.push(...globs.map(norm));
        from.push(s);
      }
    }
  }
  return { allowed: [...new Set(allowed)], forbidden: [...new Set(forbidden)], from };
}

/**
 * commission.yaml's `editing` section. With `product` (a checkout of the pinned product), the checkout is checked
 * against the pin and becomes starter/, and μ_reg is the product's own test command; without it, the notes say how
 * to supply it. The patch's path rules come from the requirements when they state them. Returns the section, or a
 * refusal (a product that does not match the pin).
 */
export function editingFrom(
  layout: AgentSweLayout,
  taskJson: Record<string, unknown> | null,
  product: string | undefined,
  texts: RequirementTexts,
  draft: PackageDraft,
  account: FileAccount,
  note: (text: string) => void,
): { editing: Record<string, unknown> } | { refused: string } {
  const pin = productPin(layout.view.taskDir, taskJson, account);
  const editing: Record<string, unknown> = { patch: 'solution.patch' };
  const scope = patchScope(texts['03'] ?? '');
  if (scope.allowed.length) editing.allowedPaths = scope.allowed;
  if (scope.forbidden.length) editing.forbiddenPaths = scope.forbidden;
  for (const s of scope.from) note(`patch path rule from 03: "${s}"`);
  const prose = [...new Set(['02', '03', '04'].flatMap((k) => proseCommands(texts[k] ?? '')))];
  if (!product) {
    note(
      `the product pin: ${pin.repo ?? '(no repo)'} at ${pin.commit ?? '(no commit)'}, git tree ${pin.gitTree ?? '(none)'}${pin.subset ? `, a subset of ${pin.subset.length} files` : ''}. It is not redistributed with the package (redistribute_a0: false): fetch it (a0/fetch.sh <dir> --lang en-upstream --verify needs the network) and import again with --product <checkout>; until then starter/ is missing and \`heldout validate\` refuses the commission`,
    );
    if (prose.length)
      note(`the requirement names these build/test commands: ${prose.map((c) => `\`${c}\``).join('; ')}`);
    return { editing };
  }
  const refused = importProduct(product, layout.view.taskDir, pin, draft, note);
  if (refused) return { refused };
  const starter = new Map<string, Buffer>();
  for (const [k, v] of draft.files) if (k.startsWith('starter/')) starter.set(k.slice('starter/'.length), v);
  const test = productTestCommand(starter);
  if (test) {
    editing.regression = { command: test.command, timeoutSeconds: 600 };
    note(
      `μ_reg: the product's own test command \`${test.command}\` (from ${test.from}), run in the patched tree; the sandbox image must hold the product's toolchain and dependencies`,
    );
  } else
    note(
      'μ_reg: the product declares no test command (package.json, pytest, tests/, Cargo.toml, go.mod, Makefile); μ_reg is not checked',
    );
  if (prose.length)
    note(
      `the requirement also names these build/test commands (not run by heldout; the product's own test command is μ_reg): ${prose.map((c) => `\`${c}\``).join('; ')}`,
    );
  return { editing };
}

function proseCommands(text: string): string[] {
  const out: string[] = [];
  for (const b of codeBlocks(text))
    for (const l of b.code.split(/\r?\n/)) if (TEST_COMMAND.test(l) && l.trim().length < 160) out.push(l.trim());
  for (const c of codeSpans(text)) if (TEST_COMMAND.test(c) && c.length < 160) out.push(c.trim());
  return out;
}

/** Copies the optimization task's starter a0 (the contract's initial artifact) to starter/. */
export function copyStarter(
  layout: AgentSweLayout,
  draft: PackageDraft,
  account: FileAccount,
  missing: string[],
): void {
  const dir = layout.starterDir!;
  const files = layout.view.list(dir);
  if (files.length === 0) {
    missing.push(`${dir}/ (the starter a0 the contract's initial_artifact names)`);
    return;
  }
  const initial = asObject(layout.contract?.initial_artifact);
  for (const f of files) {
    const hit = layout.view.resolve(f)!;
    draft.put(`starter/${f.slice(dir.length + 1)}`, readFileSync(hit.abs));
    account.record(
      hit.rel,
      'starter',
      `starter/${f.slice(dir.length + 1)}: a0${asText(initial?.name) ? `, "${asText(initial?.name)}"` : ''}, run beside every candidate on the same cases`,
    );
  }
}
