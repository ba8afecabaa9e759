import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { heldout, repoRoot as repo } from '../helpers/cli.js';

// `heldout freeze` then `heldout run`: the run holds the delivery to its freeze (DESIGN §6).
describe('a frozen delivery', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-freeze-run-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const delivery = path.join(tmp, 'agent');
  cpSync(path.join(repo, 'fixtures/deliveries/log-triage-reference'), delivery, { recursive: true });

  test('runs as frozen when untouched', async () => {
    const f = await heldout(['freeze', delivery, '--no-image']);
    expect(f.code, f.out).toBe(0);
    expect(existsSync(`${delivery}.freeze.json`)).toBe(true);
    const r = await heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      delivery,
      '--sandbox',
      'process',
      '--out',
      path.join(tmp, 'ok'),
    ]);
    expect(r.code, r.out).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(tmp, 'ok/summary.json'), 'utf8'));
    expect(summary.commissions[0].delivery).toMatchObject({
      frozen: true,
      digest: JSON.parse(readFileSync(`${delivery}.freeze.json`, 'utf8')).digest,
    });
  });

  test('a manifest written inside the delivery is left out of the digest, during the run as at the freeze', async () => {
    const inside = path.join(tmp, 'agent-inside');
    cpSync(path.join(repo, 'fixtures/deliveries/log-triage-reference'), inside, { recursive: true });
    const manifest = path.join(inside, 'freeze.json');
    const f = await heldout(['freeze', inside, '--no-image', '--out', manifest]);
    expect(f.code, f.out).toBe(0);
    const r = await heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      inside,
      '--freeze',
      manifest,
      '--sandbox',
      'process',
      '--out',
      path.join(tmp, 'inside'),
    ]);
    expect(r.code, r.out).toBe(0);
    const summary = JSON.parse(readFileSync(path.join(tmp, 'inside/summary.json'), 'utf8'));
    expect(summary.commissions[0].delivery.frozen).toBe(true);
    expect(summary.commissions[0].result.mean).toBe(100);
  });

  test('is refused after tampering, naming the changed file, and no case runs', async () => {
    appendFileSync(path.join(delivery, 'run_agent.py'), '\n# tweaked after the freeze\n');
    const r = await heldout([
      'run',
      'tasks/log-triage',
      '--delivery',
      delivery,
      '--sandbox',
      'process',
      '--out',
      path.join(tmp, 'bad'),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/refused/);
    expect(r.out).toContain('run_agent.py');
    expect(existsSync(path.join(tmp, 'bad/cases'))).toBe(false);
  });
});
