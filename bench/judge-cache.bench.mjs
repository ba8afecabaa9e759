// Judge-cache part (issue 12): tokens the judge spends on a repeated run of an unchanged delivery (goal 0).
// A small judged commission (a check and two judged dimensions, one judged outcome) is graded twice through
// `gradeCase` with an OpenAI-compatible stub on loopback as the judge; the stub answers a valid verdict and reports
// usage (≈ characters / 4), and the tokens of the requests it served during the SECOND grading are counted. With the
// judge cache on they must be 0; the baseline is the same with the cache off (`cacheDir: null`), where they are > 0.
// The wall time of the repeated grading is reported too. Each repetition uses a fresh cache directory.
// Needs the built package (`npm run build`). Sizes: HELDOUT_BENCH_JUDGE_REPS (5).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { commissionSchema, rubricSchema } from '../dist/commission/index.js';
import { gradeCase } from '../dist/grading/index.js';
import { emit, metric, size, timed } from './lib.mjs';

const REPS = size('HELDOUT_BENCH_JUDGE_REPS', 5, 1);

const verdict = JSON.stringify({
  dimensions: {
    correctness: { score: 20, max: 30, evidence: 'explanation cites the input' },
    clarity: { score: 20, max: 30, evidence: 'short and structured' },
  },
  outcomes: [{ id: 'o1', satisfied: true, safety: null, evidence: 'answers it' }],
  major_errors: [],
  assessment: 'solid',
});

/** The judge: answers every chat completion with `verdict`, recording the usage it reports. */
function startStub() {
  const usage = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const prompt = Math.ceil(raw.length / 4);
      const completion = Math.ceil(verdict.length / 4);
      usage.push(prompt + completion);
      const body = JSON.stringify({
        id: `chatcmpl-bench-${usage.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: JSON.parse(raw).model,
        choices: [{ index: 0, message: { role: 'assistant', content: verdict }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        baseURL: `http://127.0.0.1:${server.address().port}/v1`,
        usage,
        close: () => new Promise((r) => server.close(r)),
      }),
    ),
  );
}

const work = mkdtempSync(path.join(os.tmpdir(), 'heldout-bench-judge-'));
const caseDir = path.join(work, 'case');
const outputDir = path.join(work, 'out');
mkdirSync(caseDir);
mkdirSync(outputDir);
writeFileSync(path.join(caseDir, 'input.md'), 'What is the capital of France? Explain.');
writeFileSync(path.join(outputDir, 'answer.json'), '{"capital": "Paris", "why": "It is the seat of government."}');

const commission = {
  config: commissionSchema.parse({
    id: 'bench-judged',
    title: 'Bench: a judged commission',
    family: 'creation',
    entry: 'true',
    artifacts: [{ path: 'answer.json', format: 'json' }],
  }),
  rubric: rubricSchema.parse({
    dimensions: [
      {
        id: 'correctness',
        title: 'Correctness',
        max: 70,
        items: [
          { check: 'json-equals', file: 'answer.json', path: 'capital', expected: { truth: 'capital' }, points: 40 },
          { judge: 'The explanation is factually right and supported by the input.', points: 30 },
        ],
      },
      { id: 'clarity', title: 'Clarity', max: 30, items: [{ judge: 'The answer is clear.', points: 30 }] },
    ],
    outcomes: [
      { id: 'o1', title: 'Answers the question', when: { judge: 'The answer addresses the question.' }, caps: {} },
    ],
  }),
  checksDir: null,
  starterDir: null,
};
const execution = {
  backend: 'process',
  exitCode: 0,
  signal: null,
  timedOut: false,
  oom: false,
  wallMs: 1000,
  stdout: '',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  outputs: ['answer.json'],
  weakerIsolation: [],
};

const stub = await startStub();
const gradeWith = (cacheDir) =>
  gradeCase({
    commission,
    caseRef: { id: 'case-1', split: 'heldout', inputPath: path.join(caseDir, 'input.md'), truth: { capital: 'Paris' } },
    trial: 1,
    execution,
    outputDir,
    cacheDir,
    judge: { baseURL: stub.baseURL, model: 'judge-model', apiKey: 'sk-bench-not-real' },
  });

/** Grades twice; tokens the stub reported during the second grading, and its wall time. */
async function repeatedRun(cacheDir) {
  const first = await gradeWith(cacheDir);
  if (first.status !== 'graded') throw new Error(`the first grading was ${first.status}: ${first.reason}`);
  const before = stub.usage.length;
  const second = await timed(() => gradeWith(cacheDir));
  if (second.value.result !== first.result) throw new Error('the repeated grading gave another result');
  const tokens = stub.usage.slice(before).reduce((s, n) => s + n, 0);
  return { tokens, calls: stub.usage.length - before, ms: second.ms, cached: second.value.judge?.cached ?? null };
}

const on = { tokens: [], calls: [], ms: [] };
const off = { tokens: [], calls: [], ms: [] };
let cachedFlag = null;
try {
  await repeatedRun(null); // warm-up: module loading and JIT, not recorded
  for (let r = 0; r < REPS; r++) {
    const cacheDir = mkdtempSync(path.join(work, 'cache-'));
    // Alternate which goes first so drift hits both alike.
    const pair = r % 2 === 0 ? [cacheDir, null] : [null, cacheDir];
    for (const dir of pair) {
      const x = await repeatedRun(dir);
      const into = dir === null ? off : on;
      into.tokens.push(x.tokens);
      into.calls.push(x.calls);
      into.ms.push(x.ms);
      if (dir !== null) cachedFlag = x.cached;
    }
  }
} finally {
  await stub.close();
  rmSync(work, { recursive: true, force: true });
}
// Without a cost to save the comparison says nothing: that is a broken bench, not a met goal.
if (off.tokens.some((t) => t <= 0)) throw new Error(`the cache-off baseline spent no tokens: ${off.tokens}`);

emit('judge-cache', {
  config: { reps: REPS },
  metrics: [
    metric({
      name: 'judge tokens spent on a repeated run of an unchanged delivery, cache on',
      unit: 'tokens',
      samples: on.tokens,
      baseline: { name: 'cache off', samples: off.tokens },
      goal: { on: 'median', op: '<=', value: 0 },
      digits: 0,
    }),
    metric({
      name: 'judge calls on the repeated run, cache on',
      unit: 'calls',
      samples: on.calls,
      baseline: { name: 'cache off', samples: off.calls },
      digits: 0,
    }),
    metric({
      name: 'wall time of the repeated grading, cache on',
      unit: 'ms',
      samples: on.ms,
      baseline: { name: 'cache off', samples: off.ms },
      digits: 2,
    }),
  ],
  details: { repeatServedFromCache: cachedFlag },
});
