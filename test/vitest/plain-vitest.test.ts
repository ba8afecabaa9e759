import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectValidSummary } from '../report/summary-json-schema.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

/** The child Vitest must not think it is a worker of this one. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|TEST$|NODE_OPTIONS|TINYPOOL)/.test(k)) env[k] = v;
  return { ...env, CI: 'true', FORCE_COLOR: '0' };
}

async function sh(cmd: string, args: string[], cwd: string) {
  try {
    const r = await run(cmd, args, { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The figures that must not depend on how the run was split (no ids, times or paths). */
function figures(summaryPath: string) {
  const s = JSON.parse(readFileSync(summaryPath, 'utf8'));
  return s.commissions
    .map((c: any) => ({
      id: c.id,
      split: c.split,
      label: c.delivery.label,
      digest: c.delivery.digest,
      result: c.result,
      passHatK: c.passHatK,
      passAtK: c.passAtK,
      gap: c.gap,
      failureModes: c.failureModes,
      cases: c.cases.map((x: any) => ({
        id: x.id,
        trial: x.trial,
        status: x.status,
        gate: x.gate,
        result: x.result,
        passed: x.passed,
      })),
    }))
    .sort((a: any, b: any) => `${a.id}${a.label}${a.split}`.localeCompare(`${b.id}${b.label}${b.split}`));
}

// A newcomer's project: heldout installed from its tarball next to the pinned Vite and Vitest, plain `npx vitest`.
describe('heldout in a plain Vitest project', () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'heldout-newcomer-'));
    const pack = await sh('npm', ['pack', '--silent', '--pack-destination', dir], repo);
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'newcomer', private: true, type: 'module' }));
    const install = await sh(
      'npm',
      ['i', '-D', '-E', '--prefer-offline', '--no-audit', '--no-fund', 'vite@8.3.8', 'vitest@4.1.12', `./${tarball}`],
      dir,
    );
    expect(install.code, install.stderr).toBe(0);
    cpSync(path.join(repo, 'tasks/log-triage'), path.join(dir, 'commission'), { recursive: true });
    cpSync(path.join(repo, 'tasks/ticket-routing'), path.join(dir, 'routing'), { recursive: true });
    cpSync(path.join(repo, 'fixtures/deliveries/log-triage-reference'), path.join(dir, 'agent'), { recursive: true });
    cpSync(path.join(repo, 'fixtures/deliveries/ticket-routing-candidate'), path.join(dir, 'router'), {
      recursive: true,
    });
    writeFileSync(
      path.join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config';
import { heldout } from 'heldout/vitest';
export default defineConfig({ plugins: [heldout({ commissions: ['commission'], delivery: 'agent', out: 'out' })] });
`,
    );
    writeFileSync(
      path.join(dir, 'vitest.shard.config.ts'),
      `import { defineConfig } from 'vitest/config';
import { heldout } from 'heldout/vitest';
export default defineConfig({
  plugins: [heldout({
    commissions: ['commission', 'routing'],
    delivery: (id) => (id === 'commission' ? { reference: 'agent' } : { candidate: 'router' }),
    split: ['dev', 'heldout'],
    out: process.env.HELDOUT_OUT,
  })],
});
`,
    );
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('npx vitest run with its own JUnit reporter runs the commission and writes summary.json', async () => {
    const r = await sh(
      'npx',
      ['vitest', 'run', '--reporter=default', '--reporter=junit', '--outputFile.junit=junit.xml'],
      dir,
    );
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const junit = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    const cases = [...junit.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((m) => m[1]);
    expect(cases.length).toBe(9);
    // What Vitest's own JUnit carries (the README says exactly this): the suite path as the testcase name, the
    // commission file as its classname, the failure message; none of heldout's grading (task.meta is not written).
    expect(cases).toContain('log-triage &gt; agent · heldout &gt; h01-jsonl');
    expect(junit).toMatch(
      /<testcase classname="commission\/commission\.yaml" name="log-triage &gt; agent · heldout &gt; h01-jsonl"/,
    );
    expect(junit).not.toContain('<property');
    const summary = JSON.parse(readFileSync(path.join(dir, 'out/summary.json'), 'utf8'));
    expect(summary.schema).toBe('heldout/summary@2');
    expectValidSummary(summary);
    expect(summary.commissions).toHaveLength(1);
    expect(summary.commissions[0]).toMatchObject({ id: 'log-triage', split: 'heldout', result: { n: 9 } });
    expect(summary.commissions[0].result.mean).toBeGreaterThanOrEqual(80);
    expect(existsSync(path.join(dir, 'out/index.html'))).toBe(true);
  });

  test('--shard 1/2 and 2/2 merged with --merge-reports give the unsharded figures', async () => {
    const cfg = ['--config', 'vitest.shard.config.ts'];
    const env = (out: string) => {
      process.env.HELDOUT_OUT = path.join(dir, out);
    };
    env('whole');
    const whole = await sh('npx', ['vitest', 'run', ...cfg], dir);
    // Some ticket-routing dev cases miss the pass rule: the run is red, the report is still complete.
    expect(existsSync(path.join(dir, 'whole/summary.json')), whole.stdout + whole.stderr).toBe(true);
    for (const shard of ['1/2', '2/2']) {
      env(`shard-${shard[0]}`);
      await sh(
        'npx',
        ['vitest', 'run', ...cfg, `--shard=${shard}`, '--reporter=blob', `--outputFile.blob=blobs/${shard[0]}.json`],
        dir,
      );
      expect(existsSync(path.join(dir, `blobs/${shard[0]}.json`))).toBe(true);
    }
    env('merged');
    await sh('npx', ['vitest', ...cfg, '--merge-reports=blobs'], dir);
    const merged = figures(path.join(dir, 'merged/summary.json'));
    expect(merged.map((c: any) => c.id)).toContain('log-triage');
    expect(merged.map((c: any) => c.id)).toContain('ticket-routing');
    expect(merged).toEqual(figures(path.join(dir, 'whole/summary.json')));
    delete process.env.HELDOUT_OUT;
  });
  // Last: it writes the README's vitest.config.ts over the one above.
  test('the README\'s "In your project" section, run as written: install line, init, config, npx vitest run', async () => {
    const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## In your project'),
      readme.indexOf('\n## ', readme.indexOf('## In your project') + 5),
    );
    const blocks = (lang: string) =>
      [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]);
    const commands = blocks('sh')
      .flatMap((b) => b.split('\n'))
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    // The install line names heldout and every peer it declares (installed above at the pinned versions).
    const install = commands.find((c) => c.startsWith('npm install'))!.split(/\s+/);
    const peers = Object.keys(JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')).peerDependencies);
    for (const p of ['heldout', ...peers]) expect(install, p).toContain(p);
    const init = commands.find((c) => c.startsWith('npx heldout init'))!.split(/\s+/);
    const made = await sh(init[0], init.slice(1), dir);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    // The reference the skeleton's comments name ships in the package.
    const yaml = readFileSync(path.join(dir, init[3], 'commission.yaml'), 'utf8');
    const ref = /(node_modules\/heldout\/docs\/commission\.md)/.exec(yaml)![1];
    expect(readFileSync(path.join(dir, ref), 'utf8')).toContain('commission.yaml');
    const [config] = blocks('ts');
    expect(config).toMatch(/^\/\/ vitest\.config\.ts\n/);
    writeFileSync(path.join(dir, 'vitest.config.ts'), config);
    expect(commands).toContain('npx vitest run');
    const r = await sh('npx', ['vitest', 'run'], dir);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(dir, 'reports/latest/summary.json'), 'utf8'));
    expectValidSummary(summary);
    expect(summary.commissions.map((c: any) => [c.id, c.split, c.result.mean])).toEqual([
      ['word-count', 'heldout', 100],
    ]);
    expect(existsSync(path.join(dir, 'reports/latest/index.html'))).toBe(true);
    const view = commands.find((c) => c.startsWith('npx heldout view'))!.split(/\s+/);
    expect((await sh(view[0], [...view.slice(1), '--help'], dir)).code).toBe(0);
  });
});
