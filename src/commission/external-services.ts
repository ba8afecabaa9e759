import { z } from 'zod';

/**
 * Evaluator-owned services a package's cases need and heldout does not run (issue 30): a browser-control service,
 * web search, a case runtime. `heldout run --service <name>=<url|command>` maps each; the mapped value reaches the
 * sandbox as `HELDOUT_SERVICE_<NAME>` and under every variable the package documents for it, and its credentials
 * come from heldout's own environment under their documented names. A case that needs a service left unmapped (or
 * a credential heldout's environment lacks) is an infra-error naming it: the evaluator's gap, never the delivery's.
 */

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');
// heldout's own settings (the judge's and the gateway's keys, the delivery's model endpoint) never go to a sandbox.
const ownName = envName.refine((v) => !/^(?:HELDOUT_|OPENAI_|ANTHROPIC_)/.test(v), {
  message: "heldout's own variables (HELDOUT_*, OPENAI_*, ANTHROPIC_*) cannot be passed to or set in the sandbox",
});

export const externalServiceSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and -, starting with a letter'),
    /** What the service is, in the package's words (shown in the infra-error and the notes). */
    what: z.string().min(1),
    /** Variables that receive the mapped URL or command (the names the package documents). */
    env: z.array(ownName).default([]),
    /** Variables the package reads from its credential file: passed from heldout's environment when mapped. */
    credentials: z.array(ownName).default([]),
    /** Case ids that need it (`id` or `split/id`); absent: every case. */
    cases: z.array(z.string().min(1)).optional(),
  })
  .strict();

export type ExternalService = z.infer<typeof externalServiceSchema>;

/** The variable every mapped service is given by, whatever the package documents. */
export const serviceVariable = (name: string) => `HELDOUT_SERVICE_${name.toUpperCase().replace(/-/g, '_')}`;

/** `name=<url|command>` pairs (`--service`, repeatable) as a map; each bad pair is a problem naming it. */
export function parseServiceMap(pairs: string[]): { map: Record<string, string>; problems: string[] } {
  const map: Record<string, string> = {};
  const problems: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq).trim();
    const value = eq < 0 ? '' : pair.slice(eq + 1).trim();
    if (!/^[a-z][a-z0-9-]*$/.test(name) || value === '')
      problems.push(`"${pair}": expected <name>=<url|command> (a lowercase service name, then a non-empty value)`);
    else if (name in map && map[name] !== value) problems.push(`"${pair}": service ${name} is mapped twice`);
    else map[name] = value;
  }
  return { map, problems };
}

/** Whether the service applies to the case (`cases` absent: every case). */
const needs = (s: ExternalService, caseId: string, split: string) =>
  !s.cases || s.cases.includes(caseId) || s.cases.includes(`${split}/${caseId}`);

/**
 * The variables a case's external services give its sandbox, or the infra-error reason: every service the case
 * needs that `mapped` leaves out, and every credential `hostEnv` lacks, each named. Pure.
 */
export function externalServiceEnv(
  services: ExternalService[],
  caseId: string,
  split: string,
  mapped: Record<string, string>,
  hostEnv: Record<string, string | undefined>,
): { env: Record<string, string> } | { missing: string } {
  const env: Record<string, string> = {};
  const gaps: string[] = [];
  for (const s of services.filter((x) => needs(x, caseId, split))) {
    const value = mapped[s.name];
    if (value === undefined) {
      const vars = s.env.length ? ` (${s.env.join(', ')})` : '';
      gaps.push(`service "${s.name}" — ${s.what}${vars} — is not mapped: run with --service ${s.name}=<url|command>`);
      continue;
    }
    for (const v of [serviceVariable(s.name), ...s.env]) env[v] = value;
    for (const c of s.credentials) {
      const secret = hostEnv[c];
      if (secret === undefined || secret === '')
        gaps.push(`service "${s.name}" needs the credential ${c}, which heldout's environment does not set`);
      else env[c] = secret;
    }
  }
  return gaps.length ? { missing: `evaluator-owned service heldout does not run: ${gaps.join('; ')}` } : { env };
}
