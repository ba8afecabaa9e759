// Pieces of the scale part (bench/scale.bench.mjs): the generated commission and delivery, the process-tree memory
// sampler, the byte counts, and the page timings in headless Chromium.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A creation commission of `cases` held-out cases × `trials` trials whose only check is that answer.json exists;
 * the delivery (same directory, `delivery/`) sleeps `sleepS` seconds, makes one model call through the gateway and
 * writes the answer. Returns the commission and delivery directories.
 */
export function makeScaleCommission(root, { cases, trials, sleepS }) {
  const dir = join(root, 'commission');
  const w = (p, text) => {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  };
  w(
    'commission.yaml',
    `id: scale
title: Scale benchmark (sleep ${sleepS} s, one model call)
family: creation
entry: python3 agent.py --input {input} --output {output}
budgets: { wallSeconds: 120, memoryMb: 128, cpus: 0.5, pids: 32, modelCalls: 2 }
trials: ${trials}
pass: { minResult: 100 }
model: { required: true }
artifacts:
  - { path: answer.json, format: json, schema: { type: object, required: [answer] } }
`,
  );
  w(
    'rubric.yaml',
    `dimensions:
  - id: answer
    title: An answer is written
    max: 100
    items:
      - { check: exists, title: answer.json written, file: answer.json, points: 100 }
`,
  );
  for (const [f, t] of [
    ['01_goal.md', '# Goal\nAnswer the question in the input with the runtime model.\n'],
    ['02_interface.md', '# Interface\n`python3 agent.py --input <file> --output <dir>` writes `answer.json`.\n'],
    ['03_requirements.md', '# Requirements\n1. Call the runtime model once.\n'],
    ['04_resources.md', '# Resources\nThe runtime model through OPENAI_BASE_URL.\n'],
  ])
    w(`requirement/${f}`, t);
  w('cases/dev/d1/input.md', 'What is the capital of France?\n');
  for (let i = 0; i < cases; i++) w(`cases/heldout/c${String(i).padStart(5, '0')}/input.md`, `Question ${i}?\n`);

  const delivery = join(root, 'delivery');
  mkdirSync(delivery, { recursive: true });
  writeFileSync(
    join(delivery, 'agent.py'),
    `"""Sleeps a fixed time (the agent's own work), then one call to the runtime model through the gateway."""
import argparse, json, os, pathlib, time, urllib.request
p = argparse.ArgumentParser()
p.add_argument("--input")
p.add_argument("--output")
a = p.parse_args()
time.sleep(${sleepS})
req = urllib.request.Request(
    os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions",
    data=json.dumps({"model": "any", "messages": [{"role": "user", "content": pathlib.Path(a.input).read_text()}]}).encode(),
    headers={"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
)
reply = json.load(urllib.request.urlopen(req, timeout=60))
pathlib.Path(a.output, "answer.json").write_text(json.dumps({"answer": reply["choices"][0]["message"]["content"]}))
`,
  );
  return { commission: dir, delivery };
}

/** Parent pid and command line of every process, from /proc. */
function processTable() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces; the parent pid is the second field after it.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(name), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function statusKb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/**
 * Samples the memory of a process and its descendants every `everyMs`: per process its peak RSS (the kernel's
 * VmHWM, read while it lives) and command, the peak of the tree's summed RSS at one moment, and the same peak over
 * the processes `own(pid, cmd)` accepts (heldout's, where the tree also holds what the sandbox runs), with their CPU
 * seconds: unlike wall time, a figure the machine's load does not inflate.
 */
export function sampleTree(rootPid, own = () => true, everyMs = 500) {
  const procs = new Map();
  let peakTotalKb = 0;
  let peakOwnKb = 0;
  const tick = () => {
    const table = processTable();
    const tree = new Set([rootPid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, ppid] of table) {
        if (!tree.has(pid) && tree.has(ppid)) {
          tree.add(pid);
          grew = true;
        }
      }
    }
    let total = 0;
    let ownTotal = 0;
    for (const pid of tree) {
      const rss = statusKb(pid, 'VmRSS');
      const hwm = statusKb(pid, 'VmHWM');
      if (!rss && !hwm) continue;
      total += rss;
      let p = procs.get(pid);
      if (!p) {
        const cmd = cmdline(pid);
        p = { pid, cmd: cmd.slice(0, 160), own: own(pid, cmd), peakKb: 0 };
      }
      if (p.own) ownTotal += rss;
      p.peakKb = Math.max(p.peakKb, hwm, rss);
      p.cpuS = cpuSeconds(pid) ?? p.cpuS ?? 0;
      procs.set(pid, p);
    }
    peakTotalKb = Math.max(peakTotalKb, total);
    peakOwnKb = Math.max(peakOwnKb, ownTotal);
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    rootPid,
    stop() {
      clearInterval(timer);
      const all = [...procs.values()];
      // CPU as last sampled: a lower bound by up to one interval of each process's end.
      const ownCpuS = all.filter((p) => p.own).reduce((n, p) => n + p.cpuS, 0);
      return { peakTotalKb, peakOwnKb, ownCpuS, processes: all };
    },
  };
}

/** Bytes of a file, or of everything under a directory (links not followed). */
export function bytesOf(p) {
  if (!existsSync(p)) return 0;
  const st = lstatSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) n += bytesOf(join(p, e.name));
  return n;
}

/** Every case record (`<case>-t<trial>.meta.json`) under a run's cases/, parsed. */
export function readMetas(casesDir) {
  const out = [];
  const visit = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.name.endsWith('.meta.json')) out.push(JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  if (existsSync(casesDir)) visit(casesDir);
  return out;
}

/** Runs a command to its end; resolves with its exit code and the tail of its output. */
export function runToEnd(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let tail = '';
    const keep = (c) => {
      tail = (tail + c).slice(-4000);
      opts.onOutput?.(String(c));
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    opts.onSpawn?.(child);
    child.on('close', (code, signal) => resolve({ code: code ?? signal, tail }));
  });
}

const statSize = (p) => statSync(p).size;

/**
 * The page in headless Chromium from file://: first contentful paint and the time until its script ran, then an
 * entry's case list and a case's drill-down, each timed inside the page from the click to the frame that shows it
 * (the case's detail chunk not loaded before). `runs` fresh pages; returns the samples in ms.
 */
export async function pageTimings(html, runs) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  if (!existsSync('/usr/bin/chromium')) return null;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const out = { fcp: [], ready: [], list: [], drill: [], htmlBytes: statSize(html) };
  try {
    for (let r = 0; r < runs; r++) {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(html).href);
      await page.waitForSelector('html[data-ready="true"]');
      const t = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const fcp = performance.getEntriesByName('first-contentful-paint')[0];
        return { fcp: fcp ? fcp.startTime : null, ready: nav.domContentLoadedEventEnd };
      });
      if (t.fcp !== null) out.fcp.push(t.fcp);
      out.ready.push(t.ready);
      // Timed inside the page: from the click until the frame after what it asked for is shown.
      const timeClick = (kind, arg) =>
        page.evaluate(
          ([kind, arg]) =>
            new Promise((resolve) => {
              const cases = document.querySelector('#cases');
              const drill = document.querySelector('#drilldown');
              const done =
                kind === 'list'
                  ? () =>
                      document.querySelectorAll('#case-rows .case-row').length > 0 &&
                      !cases.hasAttribute('data-loading')
                  : () =>
                      drill.getAttribute('data-case') === arg && !drill.hidden && !drill.hasAttribute('data-loading');
              const t0 = performance.now();
              const check = () =>
                done() ? requestAnimationFrame(() => resolve(performance.now() - t0)) : setTimeout(check, 2);
              document
                .querySelector(kind === 'list' ? '#summary-table tr[data-row]' : '#case-rows .case-row:last-child')
                .click();
              check();
            }),
          [kind, arg],
        );
      out.list.push(await timeClick('list'));
      // The last case of the first page: its detail chunk is not one the list needed.
      out.drill.push(
        await timeClick('drill', await page.locator('#case-rows .case-row').last().getAttribute('data-case')),
      );
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return out;
}
