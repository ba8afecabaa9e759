import type { CaseEntry } from './agentswe-cases.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import type { RequirementTexts } from './agentswe-requirement.js';
import { sections } from './markdown.js';
import { plain } from './markdown-blocks.js';
import { asText } from './values.js';

/**
 * The evaluator-owned services an AgentSWE package's cases need and heldout does not run, read from what the
 * package documents: a service the harness starts and hands over by variables (`GUI_CONTROL_URL`, its token), the
 * services task.json lists (`"search"`, with the credentials its resources section names from the package's env
 * file), and a case runtime the cases call by path (`/opt/agentswe-case/run_case`). Each becomes an `external`
 * entry `heldout run --service` maps. Pure.
 */

/** One `external` entry of commission.yaml. */
export interface ExternalDecl {
  name: string;
  what: string;
  env: string[];
  credentials: string[];
  cases?: string[];
}

// The model endpoint is heldout's gateway, not an evaluator service (noted apart).
const MODEL_VAR = /RESPONSES|GATEWAY|OPENAI|ANTHROPIC|DEEPSEEK|MODEL|LLM|^HELDOUT_/;
const URL_VAR = /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:URL|ENDPOINT|ORIGIN))`/g;
const SECRET_VAR = /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:TOKEN|KEY|SECRET|PASSWORD))`/g;
const CASE_RUNTIME = /(\/opt\/[\w.-]*case[\w.-]*\/[\w.-]+)/g;
const NAMES_CASE_RUNTIME = /\/opt\/[\w.-]*case[\w.-]*\/[\w.-]+/;

const sentencesOf = (text: string) =>
  text
    .split(/\n\s*\n/)
    .flatMap((para) => plain(para).split(/(?<=[.!?])\s+/))
    .filter(Boolean);
const clip = (s: string) => (s.length > 220 ? `${s.slice(0, 217)}…` : s);
const uniq = (xs: string[]) => [...new Set(xs)];

/** The external services of a package, with notes saying what heldout gives instead. */
export function externalServicesFrom(
  taskJson: Record<string, unknown> | null,
  texts: RequirementTexts,
  cases: CaseEntry[],
  note: (text: string) => void,
): ExternalDecl[] {
  const docs = Object.values(texts).join('\n\n');
  const out: ExternalDecl[] = [];

  // Variables a harness-started service is handed over by, grouped by their first word (GUI_CONTROL_URL, GUI_FIXTURE_URL).
  const urlVars = uniq([...docs.matchAll(URL_VAR)].map((m) => m[1]!)).filter((v) => !MODEL_VAR.test(v));
  const groups = new Map<string, string[]>();
  for (const v of urlVars) groups.set(v.split('_')[0]!, [...(groups.get(v.split('_')[0]!) ?? []), v]);
  const secrets = uniq([...docs.matchAll(SECRET_VAR)].map((m) => m[1]!)).filter((v) => !MODEL_VAR.test(v));
  for (const [prefix, vars] of groups) {
    const first = vars[0]!;
    // The sentence handing the variable over, with the one before it when that one says what the service is.
    const all = sentencesOf(docs);
    const at = all.findIndex((s) => s.includes(first));
    const said = at < 0 ? first : `${at > 0 && /\bservice\b/i.test(all[at - 1]!) ? `${all[at - 1]} ` : ''}${all[at]}`;
    out.push({
      name: first
        .replace(/_(?:URL|ENDPOINT|ORIGIN)$/, '')
        .toLowerCase()
        .replace(/_/g, '-'),
      what: clip(said),
      env: vars,
      credentials: secrets.filter((s) => s.startsWith(`${prefix}_`)),
    });
  }

  // task.json `services`, each with the credentials and variables of its resources section.
  const listed = Array.isArray(taskJson?.services) ? (taskJson!.services as unknown[]) : [];
  for (const raw of listed) {
    const name = asText(raw)
      ?.toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    if (!name || out.some((o) => o.name === name)) continue;
    const section = sections(texts['04'] ?? '').find((s) => s.heading.toLowerCase().includes(name));
    const body = section?.body ?? '';
    // AgentSWE serves a fixed documented endpoint through its own egress front; the sandbox here cannot reach it.
    const fixed = uniq([...body.matchAll(/`(?:POST |GET )?(https?:\/\/[^`\s]+)`/g)].map((m) => m[1]!));
    if (fixed.length)
      note(
        `service "${name}": the package documents the fixed endpoint ${fixed.join(', ')}, which AgentSWE's harness serves; heldout's sandbox has loopback only, so a delivery reaches the mapped service through HELDOUT_SERVICE_${name.toUpperCase().replace(/-/g, '_')} (the mapped URL, relayed to its loopback), not at that address`,
      );
    out.push({
      name,
      what: clip(
        `task.json services: "${asText(raw)}"${section ? ` — ${section.heading}: ${sentencesOf(body)[0] ?? ''}` : ''}`,
      ),
      env: uniq([...body.matchAll(URL_VAR)].map((m) => m[1]!)).filter((v) => !MODEL_VAR.test(v)),
      credentials: uniq([...body.matchAll(SECRET_VAR)].map((m) => m[1]!)).filter((v) => !MODEL_VAR.test(v)),
    });
  }

  // A case runtime the cases (or the documents) call by its path.
  const inDocs = uniq([...docs.matchAll(CASE_RUNTIME)].map((m) => m[1]!));
  const byCase = cases.filter((c) => NAMES_CASE_RUNTIME.test(c.input));
  const paths = uniq([...inDocs, ...byCase.flatMap((c) => [...c.input.matchAll(CASE_RUNTIME)].map((m) => m[1]!))]);
  if (paths.length)
    out.push({
      name: 'case-runtime',
      what: `the package's case runtime ${paths.join(', ')}, which the cases run by that path`,
      env: [],
      credentials: [],
      ...(inDocs.length ? {} : { cases: byCase.map((c) => `${c.split}/${c.id}`) }),
    });

  for (const s of out)
    note(
      `evaluator-owned service "${s.name}" (${s.what}): heldout does not run it. Map it with \`heldout run --service ${s.name}=<url|command>\`: the value reaches the sandbox as ${[`HELDOUT_SERVICE_${s.name.toUpperCase().replace(/-/g, '_')}`, ...s.env].join(', ')}${s.credentials.length ? `, and the credentials ${s.credentials.join(', ')} are passed from heldout's environment under those names` : ''}${s.name === 'case-runtime' ? '; a command must exist inside the sandbox image at the path the cases call (map the image with --image-map)' : ''}. Without a mapping every case that needs it is an infra-error naming it, never a delivery failure`,
    );
  const modelVars = uniq([...docs.matchAll(/`([A-Z0-9_]*(?:RESPONSES|GATEWAY)[A-Z0-9_]*)`/g)].map((m) => m[1]!));
  if (modelVars.length)
    note(
      `model endpoint: the package documents its own gateway variables (${modelVars.join(', ')}); heldout gives the model through its gateway as OPENAI_BASE_URL with a per-case placeholder OPENAI_API_KEY instead (the package's locked model and broker are not reproduced): a delivery that reads only the package's variables finds no endpoint`,
    );
  return out;
}

/**
 * What an editing task's per-case loop needs that heldout does not have, per part of the package: the lower-agent
 * harness file, its case service, its locked model, its audit. For the refusal of an import without `--entry`.
 */
export function editingLoopNeeds(layout: AgentSweLayout, texts: RequirementTexts, external: ExternalDecl[]): string[] {
  // The package's own tests are not parts of the loop.
  const files = uniq(['tree/agentloop', ...layout.evaluatorDirs].flatMap((d) => layout.view.list(d))).filter(
    (f) => /\.py$/.test(f) && !/(^|\/)(test_|self_test|selftest)|\/tests?\//.test(f),
  );
  const pick = (re: RegExp) => files.filter((f) => re.test(f)).slice(0, 3);
  const harness = pick(/lower[_-]?agent|run_hidden|agentloop\/[^/]*run|run_case|harness\/run/);
  const runtime = pick(/case[_-]?(?:runtime|service|server)|fixtures?\/[^/]*server/);
  const broker = pick(/broker/);
  const audit = pick(/audit|score_caps|detector|ledger/);
  const docs = Object.values(texts).join('\n');
  const model = /\bmodel[=:]?\s*`?([a-z][\w.-]*\d[\w.-]*)`?/i.exec(plain(docs))?.[1]?.replace(/[.-]+$/, '');
  const service = external.find((e) => e.name === 'case-runtime');
  const none = (what: string) => `none in the package (${what})`;
  return [
    `the lower-agent harness: ${harness.length ? harness.join(', ') : none("AgentSWE's editing runner drives it")}`,
    `its case service: ${[...runtime, ...(service ? [service.what] : [])].join('; ') || none('the product alone')}`,
    `its locked model: ${model ? `${model} (the package's broker overwrites every request to it${broker.length ? `: ${broker.join(', ')}` : ''})` : broker.length ? `the broker ${broker.join(', ')}` : 'not named in the resources document'}`,
    `its audit: ${audit.length ? audit.join(', ') : none("the evaluator's own trajectory audit")}`,
  ];
}
