import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCommission } from '../../src/commission/index.js';
import { ImportError, importHarbor } from '../../src/importers/index.js';
import { listTree } from '../../src/importers/source-files.js';
import { dataDir, fixtures, snapshot, tmp } from './helpers.js';

const hello = path.join(fixtures, 'harbor-hello');
const harborData = path.join(dataDir, 'harbor');
/** Every task directory of the shared Harbor data (a directory holding task.toml), by `<source>/<task>`. */
const realTasks = existsSync(harborData)
  ? readdirSync(harborData)
      .filter((s) => statSync(path.join(harborData, s)).isDirectory())
      .flatMap((s) =>
        readdirSync(path.join(harborData, s))
          .filter((t) => existsSync(path.join(harborData, s, t, 'task.toml')))
          .map((t) => `${s}/${t}`),
      )
      .sort()
  : [];
const cookbook = (name: string) => path.join(harborData, 'harbor-cookbook', name);

/** A copy of a task with task.toml edited, for the refusals. */
function taskWith(src: string, edit: (toml: string) => string): string {
  const copy = path.join(tmp('harbor-edit'), path.basename(src));
  cpSync(src, copy, { recursive: true });
  const f = path.join(copy, 'task.toml');
  writeFileSync(f, edit(readFileSync(f, 'utf8')));
  return copy;
}

describe.skipIf(realTasks.length === 0)(
  `every real Harbor task in ../shared/data/harbor${realTasks.length ? '' : ' — skipped: no data'}`,
  () => {
    test('there are the 15 task directories the data README lists', () => {
      expect(realTasks).toHaveLength(15);
    });

    test.each(realTasks)('%s imports, validates, and IMPORT-NOTES accounts for every file', async (rel) => {
      const src = path.join(harborData, rel);
      const out = path.join(tmp('harbor-real'), 'c');
      const r = await importHarbor(src, out);
      const c = await loadCommission(out);
      expect(c.config.family).toBe('harbor');
      expect(c.cases.heldout.map((x) => x.id)).toEqual(['task']);
      const files = listTree(src);
      // Every source file is in the per-file table, and verbatim under harbor/.
      expect(r.sources?.map((s) => s.file)).toEqual(files);
      const notes = readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
      for (const f of files) {
        expect(notes).toContain(`| \`${f}\` |`);
        expect(readFileSync(path.join(out, 'harbor', f)).equals(readFileSync(path.join(src, f))), f).toBe(true);
      }
      for (const s of r.sources ?? []) expect(s.became.length).toBeGreaterThan(20);
      // The instruction reaches the case with Harbor's canary lines stripped.
      expect(readFileSync(c.cases.heldout[0]!.inputPath, 'utf8')).not.toMatch(/^<!--.*canary/i);
    });
  },
);

describe.skipIf(!existsSync(cookbook('multi-step')))('what the real recipes become', () => {
  test('multi-step: [[steps]] as ordered steps with min_reward, step timeouts, verifier env, healthcheck, artifacts', async () => {
    const out = path.join(tmp('harbor-ms'), 'c');
    await importHarbor(cookbook('multi-step'), out);
    const c = await loadCommission(out);
    const h = c.config.harbor!;
    expect(h.steps.map((s) => [s.name, s.minReward, s.agentTimeoutSeconds, s.verifier.timeoutSeconds])).toEqual([
      ['scaffold', 1, 60, 30],
      ['implement', 0.5, 90, 30],
      ['document', null, 60, 30],
    ]);
    expect(h.steps[1]!.verifier.env).toEqual({ EXPECTED_NAME: 'Harbor', EXPECTED_GREETING: 'Hello, Harbor!' });
    expect(h.steps[1]!.healthcheck).toMatchObject({ command: 'test -x /app/greet.sh', intervalSeconds: 1, retries: 3 });
    expect(h.steps[2]!.artifacts).toEqual([{ source: '/app/README.md', exclude: [] }]);
    expect(h.artifacts).toEqual([{ source: '/app/greet.sh', exclude: [] }]);
    expect(h.workdir).toBe('/app');
    expect(h.env).toEqual({ GREETER_PROJECT: 'hello-multi-step-full' });
    expect(c.config.budgets.wallSeconds).toBe(210);
    expect(c.config.sandbox.build).toEqual({ context: 'harbor/environment', dockerfile: 'Dockerfile', args: {} });
    const input = readFileSync(c.cases.heldout[0]!.inputPath, 'utf8');
    expect(input).toMatch(/## Step 1: scaffold[\s\S]*## Step 2: implement[\s\S]*## Step 3: document/);
  });

  test('multi-reward: the keys reward.json gets become one dimension each', async () => {
    const out = path.join(tmp('harbor-mr'), 'c');
    await importHarbor(cookbook('multi-reward'), out);
    const c = await loadCommission(out);
    expect(c.rubric.dimensions.map((d) => [d.id, d.max, d.items[0]])).toEqual([
      ['correctness', 50, expect.objectContaining({ check: 'reward', key: 'correctness', points: 50 })],
      ['performance', 50, expect.objectContaining({ check: 'reward', key: 'performance', points: 50 })],
    ]);
  });

  test('compose sidecars become case services (healthcheck → ready); MCP servers and skills_dir are named in IMPORT-NOTES', async () => {
    const out = path.join(tmp('harbor-mcp'), 'c');
    await importHarbor(cookbook('mcp-tools'), out);
    const c = await loadCommission(out);
    expect(c.config.services).toEqual([
      expect.objectContaining({
        name: 'mcp-server',
        build: { context: 'harbor/environment/mcp-server', dockerfile: 'Dockerfile', args: {} },
        ready: {
          command: [
            'python',
            '-c',
            "import socket; s=socket.create_connection(('localhost',8000),timeout=2); s.close()",
          ],
        },
        timeout: 110,
      }),
    ]);
    expect(c.config.harbor!.mcpServers).toEqual([
      { name: 'mcp-server', transport: 'streamable-http', url: 'http://mcp-server:8000/mcp', args: [] },
    ]);
    expect(readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8')).toMatch(/MCP server `mcp-server`/);
    const skills = path.join(tmp('harbor-skills'), 'c');
    await importHarbor(cookbook('skills'), skills);
    const s = await loadCommission(skills);
    expect(s.config.harbor!.skillsDir).toBe('/skills');
    expect(s.config.harbor!.image.copies).toEqual([{ from: ['skills/'], to: '/skills/' }]);
  });

  test('TB-2.1: docker_image beside a Dockerfile runs the Dockerfile; allow_internet = false is no network', async () => {
    const valkey = path.join(harborData, 'terminal-bench-2.1-tasks/valkey-script-debugger-uaf');
    const out = path.join(tmp('harbor-valkey'), 'c');
    await importHarbor(valkey, out);
    const c = await loadCommission(out);
    const h = c.config.harbor!;
    expect(h.network).toBe('no-network');
    expect(h.image).toMatchObject({ base: 'ubuntu:24.04', prebuilt: 'ubuntu:24.04', workdir: '/app' });
    expect(h.image.skipped.some((s) => s.startsWith('RUN git clone'))).toBe(true);
    expect(c.config.budgets).toMatchObject({ wallSeconds: 5400, cpus: 4, memoryMb: 8192 });
    expect(h.verifier.timeoutSeconds).toBe(2400);
    const notes = readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
    expect(notes).toMatch(/\[agent\.kwargs\]/);
    expect(notes).toMatch(/--force-build/);
  });

  test("a docker_image other than the Dockerfile's base is the prebuilt environment: it runs, as in Harbor", async () => {
    const src = taskWith(cookbook('simple-task'), (t) =>
      t.replace('[environment]', '[environment]\ndocker_image = "example/simple-task:20251031"'),
    );
    const out = path.join(tmp('harbor-prebuilt'), 'c');
    await importHarbor(src, out);
    const c = await loadCommission(out);
    expect(c.config.sandbox).toMatchObject({ image: 'example/simple-task:20251031' });
    expect(c.config.sandbox.build).toBeUndefined();
    expect(c.config.harbor!.image).toMatchObject({ prebuilt: 'example/simple-task:20251031', base: 'ubuntu:24.04' });
  });

  test('a USER in the Dockerfile and a WORKDIR other than /app are kept', async () => {
    const out = path.join(tmp('harbor-bisect'), 'c');
    await importHarbor(path.join(harborData, 'purple29th-tbench-2/git-bisect-flaky-test'), out);
    const h = (await loadCommission(out)).config.harbor!;
    expect(h.image).toMatchObject({ user: 'agent', workdir: '/app/repo', base: 'golang:1.22.7-bookworm' });
    expect(h.image.env.PATH).toBe(`/root/.local/bin:\${PATH}`);
  });

  test('env templates are kept for the host to fill at run time, and named', async () => {
    const out = path.join(tmp('harbor-win'), 'c');
    await importHarbor(cookbook('computer-use-windows'), out);
    const c = await loadCommission(out);
    expect(c.config.harbor!.env).toEqual({
      DAYTONA_API_KEY: `\${DAYTONA_API_KEY}`,
      DAYTONA_API_URL: `\${DAYTONA_API_URL:-https://win.trydaytona.com/api}`,
    });
    expect(readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8')).toMatch(/read DAYTONA_API_KEY, DAYTONA_API_URL/);
  });

  test('IMPORT-NOTES names what each phase fetches when it runs, and the host variables a sidecar reads', async () => {
    const notesOf = async (rel: string) => {
      const out = path.join(tmp('harbor-fetch'), 'c');
      await importHarbor(path.join(harborData, rel), out);
      return readFileSync(path.join(out, 'IMPORT-NOTES.md'), 'utf8');
    };
    expect(await notesOf('harbor-cookbook/simple-task')).toContain(
      '- `tests/test.sh` fetches when it runs: apt-get install (Debian packages), a download from https://astral.sh/uv/0.9.7/install.sh, uv/uvx resolving packages (PyPI); the verifier needs the network',
    );
    const mcp = await notesOf('harbor-cookbook/mcp-tools');
    expect(mcp).toContain(
      '- `solution/solve.sh` fetches when it runs: a download from https://astral.sh/uv/install.sh',
    );
    expect(mcp).toContain('`heldout run --oracle` needs the network for it');
    // The sidecar it curls is no fetch from the internet.
    expect(await notesOf('harbor-cookbook/multi-container')).not.toMatch(/solve\.sh` fetches/);
    expect(await notesOf('harbor-cookbook/simulated-user')).toContain(
      'compose service `user-server` reads ANTHROPIC_API_KEY, SIM_USER_MODEL from the host',
    );
    expect(await notesOf('purple29th-tbench-2/git-bisect-flaky-test')).toContain(
      'uv/uvx resolving packages (PyPI), a uv-managed CPython download',
    );
    // TB-2.1 graders are built to run offline: no fetch is named.
    for (const t of ['valkey-script-debugger-uaf', 'floci-lambda-publish-snapshot-serialisation'])
      expect(await notesOf(`terminal-bench-2.1-tasks/${t}`)).not.toMatch(/fetches when it runs/);
  });

  test('what heldout cannot run is refused with the feature named', async () => {
    const src = cookbook('simple-task');
    const refuse = async (edit: (t: string) => string) =>
      ((await importHarbor(taskWith(src, edit), path.join(tmp('harbor-refused'), 'c')).catch((e) => e)) as ImportError)
        .missing;
    expect(await refuse((t) => t.replace('[environment]', '[environment]\nos = "windows"'))).toEqual([
      'unsupported: [environment].os = "windows" (heldout runs Linux containers only)',
    ]);
    expect(await refuse((t) => t.replace('[environment]', '[environment]\ngpus = 1'))).toEqual([
      'unsupported: [environment].gpus = 1 (heldout gives no GPUs)',
    ]);
    // Schema 1.4: what this machine cannot run is refused by name; the rest runs (harbor-verifier-env.test.ts).
    expect(await refuse((t) => `${t}\n[verifier.environment]\nos = "windows"\n`)).toEqual([
      'unsupported: [verifier]: a verifier environment with os = "windows"',
      'unsupported: [verifier]: a separate verifier environment with neither tests/Dockerfile nor a docker_image (Harbor has nothing to build it from)',
    ]);
    expect(
      await refuse((t) => `${t}\n[[verifier.collect]]\nservice = "db"\ncommand = "pg_dump > /dump.sql"\n`),
    ).toEqual([
      'unsupported: [verifier] [[verifier.collect]] in compose service db (heldout runs commands only in the main container)',
    ]);
  });
});

describe.skipIf(!existsSync(cookbook('multi-step')))("the 16th item: the cookbook's registry.json", () => {
  const out = () => path.join(tmp('harbor-registry'), 'c');
  test('the registry file is refused as a registry, naming the tasks it lists', async () => {
    const err = (await importHarbor(path.join(harborData, 'harbor-cookbook/registry.json'), out()).catch(
      (e: unknown) => e,
    )) as ImportError;
    expect(err).toBeInstanceOf(ImportError);
    expect(err.missing).toHaveLength(1);
    expect(err.missing[0]).toMatch(/^a Harbor registry, not a task: import each task it lists/);
    expect(err.missing[0]).toContain('recipes/multi-step');
  });
  test('the directory holding it is refused as a collection of tasks, each named', async () => {
    const err = (await importHarbor(path.join(harborData, 'harbor-cookbook'), out()).catch(
      (e: unknown) => e,
    )) as ImportError;
    expect(err.missing).toEqual([
      `a Harbor registry (registry.json), not a task: import each task directory (heldout import harbor <dir>/<task>): ${realTasks
        .filter((t) => t.startsWith('harbor-cookbook/'))
        .map((t) => t.split('/')[1])
        .join(', ')}`,
    ]);
  });
});

describe('importing the Harbor fixture', () => {
  test('task.toml budgets, the verifier, the FROM image and the reward as the one dimension', async () => {
    const out = path.join(tmp('harbor'), 'c');
    const r = await importHarbor(hello, out);
    expect(r.id).toBe('hello-greeting');
    const c = await loadCommission(out);
    expect(c.config).toMatchObject({
      family: 'harbor',
      entry: 'sh {delivery}/run.sh {input}',
      sandbox: { build: { context: 'harbor/environment', dockerfile: 'Dockerfile' } },
      budgets: { wallSeconds: 120, cpus: 1, memoryMb: 512 },
      pass: { minResult: 100 },
    });
    expect(c.config.harbor).toMatchObject({
      network: 'no-network',
      verifier: { timeoutSeconds: 60, env: { GREETING: 'Hello, world!' } },
      image: { base: 'heldout/runtime:1', workdir: '/app', dockerfile: 'harbor/environment/Dockerfile' },
    });
    expect(c.rubric.dimensions).toEqual([
      expect.objectContaining({ id: 'reward', max: 100, items: [expect.objectContaining({ check: 'reward' })] }),
    ]);
    // test.sh keeps its exec bit in the copy: Harbor runs it directly.
    expect(statSync(path.join(out, 'harbor/tests/test.sh')).mode & 0o111).not.toBe(0);
  });

  test('is deterministic', async () => {
    const a = path.join(tmp('harbor-a'), 'c');
    const b = path.join(tmp('harbor-b'), 'c');
    await importHarbor(hello, a);
    await importHarbor(hello, b);
    const sa = snapshot(a);
    const sb = snapshot(b);
    expect([...sb.keys()]).toEqual([...sa.keys()]);
    for (const [k, v] of sa) expect(sb.get(k)!.equals(v), k).toBe(true);
  });

  test('an incomplete task names what is missing', async () => {
    const copy = path.join(tmp('harbor-broken'), 'hello');
    cpSync(hello, copy, { recursive: true });
    rmSync(path.join(copy, 'tests/test.sh'));
    rmSync(path.join(copy, 'instruction.md'));
    rmSync(path.join(copy, 'environment/Dockerfile'));
    const err = await importHarbor(copy, path.join(tmp('harbor-broken-out'), 'c')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).missing).toEqual([
      'instruction.md (the task prompt)',
      'tests/test.sh (the verifier writing reward.txt or reward.json)',
      'environment/Dockerfile or [environment].docker_image (the image the trial runs)',
    ]);
  });

  test('an invalid task.toml is named as task.toml: line: problem', async () => {
    const copy = path.join(tmp('harbor-bad-toml'), 'hello');
    cpSync(hello, copy, { recursive: true });
    writeFileSync(path.join(copy, 'task.toml'), '[agent]\ntimeout_sec = 1\ntimeout_sec = 2\n');
    const err = await importHarbor(copy, path.join(tmp('harbor-bad-toml-out'), 'c')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).missing).toEqual([
      'task.toml: line 3: trying to redefine an already defined table or value',
    ]);
  });
});
