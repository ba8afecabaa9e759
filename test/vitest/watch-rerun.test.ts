import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldout, repoRoot } from '../helpers/cli.js';

/** The child must not think it is a worker of this Vitest. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|TEST$|NODE_OPTIONS|TINYPOOL)/.test(k)) env[k] = v;
  return { ...env, FORCE_COLOR: '0' };
}

/** Collects a child's output; `until(re)` resolves when a line matching it has appeared (waits on events, not time). */
function follow(child: ChildProcess) {
  let text = '';
  const waiters: { re: RegExp; from: number; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = text.slice(w.from).match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  const add = (chunk: Buffer) => {
    text += chunk.toString();
    check();
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return {
    get text() {
      return text;
    },
    mark: () => text.length,
    until: (re: RegExp, from = 0) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`exited ${code} before ${re}:\n${text}`)));
        waiters.push({ re, from, resolve });
        check();
      }),
  };
}

const edit = (file: string, from: string, to: string) => {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
};

describe('watch mode', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-watch-'));
  const commission = path.join(tmp, 'counter');
  const delivery = path.join(tmp, 'counter-delivery');
  const agent = path.join(delivery, 'run_agent.py');
  const children: ChildProcess[] = [];
  afterAll(() => {
    // Only the processes this test started, by their handles.
    for (const c of children) if (c.exitCode === null) c.kill('SIGINT');
    rmSync(tmp, { recursive: true, force: true });
  });

  beforeAll(async () => {
    const r = await heldout(['init', commission]);
    expect(r.code, r.out).toBe(0);
  });

  test('under Vitest --watch an edit to the delivery, the rubric or a case reruns the commission suite', async () => {
    // Vitest's own Node API in watch mode with the heldout plugin, as `npx vitest` (watch) runs it.
    const script = path.join(tmp, 'watch.mjs');
    const vitestNode = import.meta.resolve('vitest/node');
    const plugin = path.join(repoRoot, 'dist/vitest/index.js');
    writeFileSync(
      script,
      `import { startVitest } from ${JSON.stringify(vitestNode)};
import { heldout } from ${JSON.stringify(plugin)};
let runs = 0;
const reporter = { onTestRunEnd(mods) {
  const states = mods.flatMap((m) => [...m.children.allTests()].map((t) => t.result().state));
  console.log(\`run \${++runs}: \${states.join(' ')}\`);
} };
await startVitest('test', [], { watch: true, config: false, root: ${JSON.stringify(tmp)} }, {
  plugins: [heldout({ commissions: ['counter'], delivery: 'counter-delivery', split: 'dev', sandbox: 'process', out: 'out', table: false })],
  test: { include: [], reporters: [reporter] },
});
`,
    );
    const child = spawn('node', [script], { cwd: tmp, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const out = follow(child);
    await out.until(/^run 1: passed$/m);

    let at = out.mark();
    edit(agent, "counts = {'words': len(text.split())", "counts = {'words': 1 + len(text.split())");
    await out.until(/^run 2: failed$/m, at);

    at = out.mark();
    edit(
      path.join(commission, 'rubric.yaml'),
      'path: words, expected: { truth: words }, points: 40',
      'path: words, expected: { value: 13 }, points: 40',
    );
    await out.until(/^run 3: passed$/m, at);

    // A line more in the case's text: the truth no longer matches the delivery's count.
    at = out.mark();
    appendFileSync(path.join(commission, 'cases/dev/example-1/assets/text.txt'), 'One more line.\n');
    await out.until(/^run 4: failed$/m, at);
    child.stdin?.write('q');
    child.kill('SIGINT');
  });

  test('heldout dev --watch runs a new development round when the submission changes', async () => {
    const ledger = path.join(tmp, 'rounds.json');
    const child = spawn(
      'node',
      [
        path.join(repoRoot, 'dist/cli/bin.js'),
        'dev',
        commission,
        '--delivery',
        delivery,
        '--sandbox',
        'process',
        '--ledger',
        ledger,
        '--watch',
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    children.push(child);
    const out = follow(child);
    await out.until(/^watching .* for changes \(Ctrl-C stops\)$/m);
    const first = JSON.parse(readFileSync(ledger, 'utf8'));

    const at = out.mark();
    edit(agent, "counts = {'words': 1 + len(text.split())", "counts = {'words': 2 + len(text.split())");
    await out.until(/run_agent\.py changed: a new round/, at);
    await out.until(/^watching /m, at);
    const second = JSON.parse(readFileSync(ledger, 'utf8'));
    expect(second.rounds.length, out.text).toBe(first.rounds.length + 1);
    child.kill('SIGINT');
  });
});
