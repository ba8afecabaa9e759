import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import {
  externalServiceEnv,
  externalServiceSchema,
  loadCommission,
  parseServiceMap,
} from '../../src/commission/index.js';
import { externalServicesFrom, ImportError, importAgentSwe } from '../../src/importers/index.js';
import { heldout } from '../helpers/cli.js';
import { agentsweFixtures, deeptutor, tmp } from './helpers.js';

// The evaluator-owned services of AgentSWE packages (issue 30): what the import declares from the package's own
// documents, how `heldout run --service` maps them, and that an unmapped one is an infra-error naming it — on a
// real run of the fixture faithful to desktop-gui-automation (its rubric and interface verbatim).
const gui = path.join(agentsweFixtures, 'creation/desktop-gui-automation');
const notesOf = (dir: string) => readFileSync(path.join(dir, 'IMPORT-NOTES.md'), 'utf8');
const noJudge = {
  ...process.env,
  HELDOUT_JUDGE_BASE_URL: '',
  HELDOUT_JUDGE_MODEL: '',
  OPENAI_BASE_URL: '',
  OPENAI_MODEL: '',
};

describe('what an import declares', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('gui'), 'c');
    await importAgentSwe(gui, dir);
  });

  test('the browser-control service the harness hands over by GUI_CONTROL_URL, with its token', async () => {
    const c = await loadCommission(dir);
    expect(c.config.external).toEqual([
      expect.objectContaining({
        name: 'gui-control',
        env: ['GUI_CONTROL_URL', 'GUI_FIXTURE_URL'],
        credentials: ['GUI_CONTROL_TOKEN'],
      }),
    ]);
    expect(c.config.external[0]!.what).toMatch(/evaluator-owned browser\/control service/);
    const notes = notesOf(dir);
    expect(notes).toMatch(/heldout run --service gui-control=<url\|command>/);
    expect(notes).toMatch(/AGENTSWE_RESPONSES_BASE_URL, GATEWAY_RESPONSES_ENDPOINT, GATEWAY_API_KEY\); heldout gives/);
    expect(notes).toMatch(/as OPENAI_BASE_URL/);
  });

  test('"No `automation_result.json` or final screenshot is produced" gates both; the other screenshots stay ungated', async () => {
    const c = await loadCommission(dir);
    const required = c.config.artifacts.filter((a) => a.required).map((a) => a.path);
    expect(required).toEqual(['automation_result.json', 'final_state.png']);
  });

  test('a tiered cap in the rubric becomes one judged ceiling per capped band in rubric.yaml', async () => {
    const copy = path.join(tmp('tiered'), 'desktop-gui-automation');
    cpSync(gui, copy, { recursive: true });
    const rubric = path.join(copy, 'benchmark/evaluator/rubric.md');
    const text = readFileSync(rubric, 'utf8').replace(
      '## 1. Requested Application Outcome',
      "## Completion ceiling\n\nBy the share of the case's completion flags the bridge shows settled: 85 % or more is not capped, 70–84 % caps at 45, 55–69 % at 32, below 55 % at 20.\n\n## 1. Requested Application Outcome",
    );
    writeFileSync(rubric, text);
    const out = path.join(tmp('tiered-out'), 'c');
    await importAgentSwe(copy, out);
    const c = await loadCommission(out);
    const tiers = c.rubric.ceilings.filter((x) => x.id !== 'zero-rules');
    expect(tiers.map((x) => x.max)).toEqual([45, 32, 20]);
    expect(new Set(tiers.map((x) => x.id)).size).toBe(3);
    expect(JSON.stringify(tiers[1])).toMatch(/NOT within 55–69 %/);
    expect(notesOf(out)).toMatch(/≤ 45 \(tiered: band 70–84 %\)/);
  });

  test('web search from task.json `services`, with the credential of its resources section; a case runtime by path', () => {
    const notes: string[] = [];
    const resources =
      '# Execution Resources\n\n## Credentials\n\nCredentials are provisioned in `/opt/agentswe/benchmark/envs/.env` as `GATEWAY_API_KEY` and `SERPER_TOKEN`.\n\n## Search and Scrape\n\nThe Serper-compatible search proxy is `POST https://search.example.com/serp_search_v1` with JSON fields `query` and `token` from `SERPER_TOKEN`.\n';
    const cases = [
      {
        id: 'test_001',
        split: 'heldout' as const,
        row: null,
        input: 'Run `/opt/agentswe-case/run_case tamper_seed` once.',
        absentAssets: [],
      },
      { id: 'test_002', split: 'heldout' as const, row: null, input: 'No action.', absentAssets: [] },
    ];
    const found = externalServicesFrom({ services: ['search'] }, { '04': resources }, cases, (n) => notes.push(n));
    expect(found).toEqual([
      expect.objectContaining({ name: 'search', env: [], credentials: ['SERPER_TOKEN'] }),
      expect.objectContaining({ name: 'case-runtime', cases: ['heldout/test_001'] }),
    ]);
    expect(found[1]!.what).toMatch(/\/opt\/agentswe-case\/run_case/);
    expect(notes.join('\n')).toMatch(/HELDOUT_SERVICE_SEARCH, and the credentials SERPER_TOKEN/);
    expect(notes.join('\n')).toMatch(/fixed endpoint https:\/\/search\.example\.com\/serp_search_v1/);
    // A package that documents none declares none.
    expect(externalServicesFrom({ services: [] }, { '04': '# R\n\nNothing.' }, [], () => {})).toEqual([]);
  });

  test('an editing package refused without --entry names, part by part, what its loop needs', async () => {
    const copy = path.join(tmp('loop'), 'deeptutor-adaptive-remediation');
    cpSync(deeptutor, copy, { recursive: true });
    writeFileSync(
      path.join(copy, 'tree/input/02_interface_and_delivery.md'),
      '# Interface\n\n```bash\npython -m mastery.adapter --request <request.json> --response <response.json>\n```\n',
    );
    writeFileSync(
      path.join(copy, 'tree/input/04_resources.md'),
      '# Resources\n\nThe broker overwrites every request to `model=gpt-5.6-sol`.\n\nRun `/opt/agentswe-case/run_case <action>` for each case action.\n',
    );
    const refusal = async () => {
      const err = await importAgentSwe(copy, path.join(tmp('r'), 'c')).catch((e) => e);
      expect(err).toBeInstanceOf(ImportError);
      return (err as ImportError).message;
    };
    let msg = await refusal();
    expect(msg).toMatch(/the lower-agent harness: tree\/agentloop\/run_hidden\.py/);
    expect(msg).toMatch(/its case service: the package's case runtime \/opt\/agentswe-case\/run_case/);
    expect(msg).toMatch(/its locked model: gpt-5\.6-sol \(the package's broker overwrites every request to it\)/);
    expect(msg).toMatch(/its audit: none in the package/);
    // codex-execution-residual's layout: the harness, case runtime, broker and audit under tree/evaluator/ (its tests are not parts).
    for (const f of [
      'harness/run_lower_agent_case.py',
      'harness/case_runtime.py',
      'harness/ledger_audit.py',
      'harness/test_0910_turn_boundary.py',
      'broker/lower_responses_broker.py',
    ]) {
      mkdirSync(path.dirname(path.join(copy, 'tree/evaluator', f)), { recursive: true });
      writeFileSync(path.join(copy, 'tree/evaluator', f), '# stand-in\n');
    }
    msg = await refusal();
    expect(msg).toMatch(
      /the lower-agent harness: tree\/agentloop\/run_hidden\.py, tree\/evaluator\/harness\/run_lower_agent_case\.py;/,
    );
    expect(msg).toMatch(/its case service: tree\/evaluator\/harness\/case_runtime\.py; the package's case runtime/);
    expect(msg).toMatch(/overwrites every request to it: tree\/evaluator\/broker\/lower_responses_broker\.py\)/);
    expect(msg).toMatch(/its audit: tree\/evaluator\/harness\/ledger_audit\.py$/m);
    expect(msg).not.toMatch(/test_0910/);
  });
});

describe('mapping a service', () => {
  const svc = [
    { name: 'gui-control', what: 'the browser', env: ['GUI_CONTROL_URL'], credentials: ['GUI_CONTROL_TOKEN'] },
  ];

  test("a commission cannot route heldout's own variables through a service", () => {
    const bad = { name: 'x', what: 'y', env: ['OPENAI_BASE_URL'], credentials: ['HELDOUT_JUDGE_API_KEY'] };
    const r = externalServiceSchema.safeParse(bad);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['env.0', 'credentials.0']);
  });

  test('--service pairs: a bad one is named', () => {
    expect(parseServiceMap(['gui-control=http://127.0.0.1:1', 'case-runtime=/opt/x/run_case']).map).toEqual({
      'gui-control': 'http://127.0.0.1:1',
      'case-runtime': '/opt/x/run_case',
    });
    expect(parseServiceMap(['Search', 'gui=']).problems).toHaveLength(2);
  });

  test('a bad --service is a usage error naming it (exit 2)', async () => {
    const r = await heldout(['run', gui, '--delivery', tmp('d'), '--service', 'Bad']);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/--service: "Bad": expected <name>=<url\|command>/);
  });

  test('mapped: the value under HELDOUT_SERVICE_<NAME> and the documented names, the credential from heldout', () => {
    expect(
      externalServiceEnv(svc, 'test_001', 'heldout', { 'gui-control': 'http://h:1' }, { GUI_CONTROL_TOKEN: 't' }),
    ).toEqual({
      env: { HELDOUT_SERVICE_GUI_CONTROL: 'http://h:1', GUI_CONTROL_URL: 'http://h:1', GUI_CONTROL_TOKEN: 't' },
    });
  });

  test('unmapped, or its credential unset: the reason names the service or the credential; other cases are untouched', () => {
    const none = externalServiceEnv(svc, 'test_001', 'heldout', {}, {});
    expect('missing' in none && none.missing).toMatch(
      /service "gui-control" — the browser \(GUI_CONTROL_URL\) — is not mapped/,
    );
    const noToken = externalServiceEnv(svc, 'test_001', 'heldout', { 'gui-control': 'http://h:1' }, {});
    expect('missing' in noToken && noToken.missing).toMatch(/credential GUI_CONTROL_TOKEN/);
    const scoped = [{ ...svc[0]!, cases: ['heldout/test_002'] }];
    expect(externalServiceEnv(scoped, 'test_001', 'heldout', {}, {})).toEqual({ env: {} });
    expect('missing' in externalServiceEnv(scoped, 'test_002', 'heldout', {}, {})).toBe(true);
  });
});

describe('heldout run on the imported desktop-gui-automation fixture', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(tmp('gui-run'), 'c');
    await importAgentSwe(gui, dir);
  });

  /** A delivery whose run_agent.py writes `files` only when the mapped service reached it under the documented names. */
  function delivery(files: string[]): string {
    const d = tmp('gui-delivery');
    // The mapped URL reaches the sandbox as its relay's loopback address (agentswe-service-relay.test.ts).
    const py = `import json, os, re, sys
out = sys.argv[sys.argv.index('--output') + 1]
local = lambda v: re.fullmatch(r'http://127\\.0\\.0\\.1:[0-9]+/', os.environ.get(v, ''))
if not local('GUI_CONTROL_URL') or os.environ.get('GUI_FIXTURE_URL') != os.environ.get('GUI_CONTROL_URL') or os.environ.get('GUI_CONTROL_TOKEN') != 'cap-token':
    sys.exit('GUI_CONTROL_URL/GUI_CONTROL_TOKEN absent')
for f in ${JSON.stringify(files)}:
    open(os.path.join(out, f), 'w').write(json.dumps({'case_id': 'test_001'}) if f.endswith('.json') else 'png')
`;
    writeFileSync(path.join(d, 'run_agent.py'), py);
    chmodSync(path.join(d, 'run_agent.py'), 0o644);
    chmodSync(d, 0o755);
    return d;
  }

  async function cases(deliveryDir: string, args: string[], env: NodeJS.ProcessEnv = noJudge) {
    const out = tmp('gui-out');
    mkdirSync(out, { recursive: true });
    const r = await heldout(['run', dir, '--delivery', deliveryDir, '--out', out, '--no-judge-cache', ...args], {
      env,
    });
    expect(r.code, r.out).not.toBe(2);
    const s = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8'));
    return s.commissions[0].cases as { id: string; status: string; gate: string | null; reason: string | null }[];
  }
  const all = [
    'automation_result.json',
    'initial_state.png',
    'decisive_step.png',
    'final_state.png',
    'run_report.json',
  ];

  test('without --service every case is an infra-error naming the service, never a gate-failed 0', async () => {
    const [c] = await cases(delivery(all), []);
    expect(c!.status).toBe('infra-error');
    expect(c!.reason).toMatch(/service "gui-control"[\s\S]*--service gui-control=/);
  });

  test('mapped, the delivery gets the URL and token under their documented names and is graded', async () => {
    const env = { ...noJudge, GUI_CONTROL_TOKEN: 'cap-token' };
    // Something must answer where the service is mapped (a target that does not is the evaluator's gap).
    const answering = net.createServer((c) => c.end());
    await new Promise<void>((r) => answering.listen(0, '127.0.0.1', r));
    onTestFinished(() => {
      answering.close();
    });
    const map = ['--service', `gui-control=http://127.0.0.1:${(answering.address() as AddressInfo).port}/`];
    const [ok] = await cases(delivery(all), map, env);
    // Past every gate; unscored only for want of a judge model.
    expect([ok!.status, ok!.gate]).toEqual(['unscored', null]);
    const [noFinal] = await cases(delivery(all.filter((f) => f !== 'final_state.png')), map, env);
    expect([noFinal!.status, noFinal!.gate]).toEqual(['gate-failed', 'missing-artifact']);
    expect(noFinal!.reason).toMatch(/final_state\.png/);
  });
});
