import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { engineAnswers } from '../../src/sandbox/index.js';
import { WAIT_MS } from '../helpers/deadlines.js';

const repo = path.resolve(import.meta.dirname, '../..');
const commission = path.join(repo, 'fixtures/tool-agent/airline-5');
const deliveries = path.join(repo, 'fixtures/tool-agent/deliveries');
const WRITING = ['11', '7', '8'];
const CASES = ['1', '11', '5', '7', '8'];

async function heldoutRun(delivery: string, sandbox: string, out: string) {
  try {
    const r = await promisify(execFile)(
      'node',
      [
        path.join(repo, 'dist/cli/bin.js'),
        'run',
        commission,
        '--delivery',
        path.join(deliveries, delivery),
        '--sandbox',
        sandbox,
        '--out',
        out,
        '--reporter',
        'dot',
      ],
      { cwd: repo, maxBuffer: 32 << 20 },
    );
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}` };
  }
}

const truth = (id: string) =>
  JSON.parse(readFileSync(path.join(commission, 'cases/heldout', id, 'truth.json'), 'utf8'));
/** The episode record of a case; a run's single delivery is labelled by its directory name (oracle, nop). */
const episode = (out: string, id: string, trial: number) => {
  const [label] = readdirSync(path.join(out, 'cases/tau2-airline-5'));
  return JSON.parse(
    readFileSync(path.join(out, 'cases/tau2-airline-5', label!, 'heldout', `${id}-t${trial}`, 'episode.json'), 'utf8'),
  );
};

const docker = await engineAnswers(WAIT_MS);
if (!docker) console.warn('tool-agent runner test: no docker engine answers; the docker half is skipped');

describe.each([
  ['process', true],
  ['docker', docker],
] as const)('a tool-agent run of the scripted deliveries (%s sandbox)', (sandbox, available) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `heldout-tool-agent-${sandbox}-`));
  const runs: Record<string, { code: number; out: string; summary: any; dir: string }> = {};
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(async () => {
    if (!available) return;
    expect(
      existsSync(path.join(repo, 'dist/grading/families/tool-agent/episode.js')),
      'run `npm run build` first',
    ).toBe(true);
    await Promise.all(
      ['oracle', 'nop'].map(async (d) => {
        const dir = path.join(tmp, d);
        const r = await heldoutRun(d, sandbox, dir);
        const file = path.join(dir, 'summary.json');
        const summary = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).commissions[0] : null;
        runs[d] = { ...r, summary, dir };
      }),
    );
  });

  test.skipIf(!available)('the oracle: pass^1..pass^3 = 1.0, Result 100 on every case, the gold replayed', () => {
    const { code, out, summary, dir } = runs.oracle;
    expect(summary, out).not.toBeNull();
    expect(code, out).toBe(0);
    expect(summary.family).toBe('tool-agent');
    expect(summary.passHatK).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(summary.result.mean).toBe(100);
    expect(summary.cases).toHaveLength(CASES.length * 3);
    for (const c of summary.cases) {
      expect(c, `${c.id} t${c.trial}`).toMatchObject({ status: 'graded', result: 100, passed: true });
      // The report carries the warning that the gold was leaked on purpose.
      expect(c.stderrTail).toContain('oracleHints is on');
    }
    for (const id of CASES) {
      for (const trial of [1, 2, 3]) {
        const e = episode(dir, id, trial);
        expect(e.reward).toBe(1);
        expect(e.info).toMatchObject({ termination: 'user_stop', taskId: id, user: 'scripted', oracleHints: true });
        expect(e.toolCalls.map((c: any) => c.name)).toEqual(
          (truth(id).evaluation_criteria?.actions ?? []).map((a: any) => a.name),
        );
        expect(e.messages[0]).toMatchObject({ role: 'user' });
        expect(e.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('###STOP###') });
      }
    }
  });

  test.skipIf(!available)(
    'nop: 0 on every trial of the tasks whose gold writes, pass^k only from the read-only ones',
    () => {
      const { code, out, summary, dir } = runs.nop;
      expect(summary, out).not.toBeNull();
      expect(code, out).toBe(1);
      const writing: string[] = [];
      for (const id of CASES) {
        const trials = summary.cases.filter((c: any) => c.id === id);
        expect(trials).toHaveLength(3);
        const e = episode(dir, id, 1);
        expect(e.toolCalls).toEqual([]);
        expect(e.messages.some((m: any) => m.role === 'assistant' && m.content.startsWith('Sorry'))).toBe(true);
        if (e.rewardDetail.info.goldHash !== e.rewardDetail.info.agentHash) {
          writing.push(id);
          for (const t of trials)
            expect(t, `${id} t${t.trial}`).toMatchObject({ status: 'graded', result: 0, passed: false });
        } else {
          for (const t of trials) expect(t, `${id} t${t.trial}`).toMatchObject({ result: 100, passed: true });
        }
      }
      expect(writing.sort()).toEqual(WRITING);
      // pass^k over the writing tasks is 0; over all five it is the read-only share.
      const share = (CASES.length - WRITING.length) / CASES.length;
      expect(summary.passHatK).toEqual({ 1: share, 2: share, 3: share });
      expect(summary.result.mean).toBeCloseTo(100 * share, 9);
    },
  );

  test.skipIf(!available)('the agent saw only the bridge and its socket, never the case truth', () => {
    for (const d of ['oracle', 'nop']) {
      for (const id of CASES) {
        const { bridge } = episode(runs[d].dir, id, 2).info;
        expect(bridge.mounts).toHaveLength(1);
        const [m] = bridge.mounts;
        expect(m.readOnly).toBe(true);
        expect(m.files).toEqual(['agent.sock', 'bridge.mjs']);
        expect(path.resolve(m.hostPath).startsWith(commission)).toBe(false);
        const inside = sandbox === 'docker' ? '/episode' : m.hostPath;
        expect(bridge.command).toBe(`node '${inside}/bridge.mjs' '${inside}/agent.sock' -- 'node agent.mjs'`);
        expect(bridge.command).not.toContain('truth');
      }
    }
  });
});
