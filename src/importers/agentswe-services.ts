import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileAccount } from './agentswe-account.js';
import type { CaseEntry } from './agentswe-cases.js';
import type { AgentSweLayout } from './agentswe-layout.js';
import type { CaseTruths } from './agentswe-truth.js';
import { type PackageDraft, toYaml } from './package-writer.js';
import { asNumber, asObject } from './values.js';

/** The image a mapped fixture service runs in: heldout's runtime image has python3 and its standard library. */
export const FIXTURE_SERVICE_IMAGE = 'heldout/runtime:1';

/**
 * Maps the per-case fixture service a package's harness starts before the agent — an evaluator-owned
 * `fixtures/*server*.py` configured by the case's truth file, which holds its loopback `port` (AgentSWE's
 * authorized-vulnerability-validation runs it as a compose sidecar sharing the candidate's loopback) — to a case
 * service: `cases/<split>/<id>/case.yaml` `services:` in the form of issue 19, the server under `services/` and the
 * case's config under the case directory, both evaluator-owned. Returns the cases that got one.
 */
export function mapFixtureServices(
  layout: AgentSweLayout,
  cases: CaseEntry[],
  truths: CaseTruths,
  draft: PackageDraft,
  account: FileAccount,
  notes: (text: string) => void,
): string[] {
  const { view } = layout;
  const servers = layout.evaluatorDirs
    .flatMap((d) => view.list(d))
    .filter((f) => /(^|\/)fixtures?\/[^/]*(server|service)[^/]*\.py$/i.test(f));
  if (servers.length === 0) return [];
  const server = view.resolve(servers[0]!)!;
  const serverName = path.posix.basename(server.rel);
  const mapped: string[] = [];
  for (const c of cases) {
    const truth = asObject(truths.get(`${c.split}/${c.id}`)?.judgeReference);
    const configKey = Object.keys(truth ?? {}).find((k) => /fixtures?\/truth\/\{case\}$/.test(k));
    const config = configKey ? asObject(truth![configKey]) : null;
    const port = asNumber(config?.port);
    if (!config || port === null) continue;
    const dest = `cases/${c.split}/${c.id}`;
    draft.put(`${dest}/service/config.json`, `${JSON.stringify(config, null, 2)}\n`);
    draft.put(
      `${dest}/case.yaml`,
      toYaml({
        services: [
          {
            name: 'fixture',
            image: FIXTURE_SERVICE_IMAGE,
            command: [
              'python3',
              '-I',
              `/fixture/${serverName}`,
              '--config',
              '/fixture/config.json',
              '--audit',
              '/tmp/agentswe-audit/requests.jsonl',
            ],
            files: {
              [`{commission}/services/fixture/${serverName}`]: `/fixture/${serverName}`,
              'service/config.json': '/fixture/config.json',
            },
            ready: { tcp: port },
            timeout: 60,
          },
        ],
      }),
    );
    mapped.push(`${c.split}/${c.id}`);
  }
  if (mapped.length === 0) return [];
  draft.put(`services/fixture/${serverName}`, readFileSync(server.abs));
  account.record(
    server.rel,
    'harness → service',
    `services/fixture/${serverName}: the per-case fixture service (case.yaml of ${mapped.length} cases), on the port of each case's truth file`,
  );
  notes(
    `harness → case service: the package's harness starts ${server.rel} per case before the agent (listening on 127.0.0.1:<port of the case's truth file>); each case's case.yaml declares it as service "fixture" (image ${FIXTURE_SERVICE_IMAGE}, ready when its TCP port answers), reachable only from that case's sandbox. Its request audit (requests.jsonl), which the package's evaluate_case.py reads, stays inside the service: heldout's judge does not see it.`,
  );
  return mapped;
}
