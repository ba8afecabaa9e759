import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  defaultLedgerPath,
  emptyLedger,
  readLedger,
  recordRound,
  withLedgerLock,
  writeLedger,
} from '../../src/devloop/index.js';
import { digestOf } from './arbitraries.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'heldout-ledger-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const entry = (i: number) => ({ digest: digestOf(i), devMean: i, accepted: true, at: `t${i}`, cases: [] });

describe('the round ledger file', () => {
  test('defaults to .heldout/rounds/<commission-id>.json; a missing file is an empty ledger of that commission', async () => {
    expect(defaultLedgerPath('log-triage', '/w')).toBe('/w/.heldout/rounds/log-triage.json');
    expect(await readLedger(path.join(tmp, 'none.json'), 'x')).toEqual(emptyLedger('x'));
    await expect(readLedger(path.join(tmp, 'none.json'))).rejects.toThrow(/no round ledger here/);
  });

  test('round-trips, in a new directory, leaving no temporary file behind', async () => {
    const file = path.join(tmp, 'deep', 'dir', 'c.json');
    const l = recordRound(emptyLedger('c'), entry(1), 5).ledger;
    await writeLedger(file, l);
    expect(await readLedger(file, 'c')).toEqual(l);
    expect(readdirSync(path.dirname(file))).toEqual(['c.json']);
  });

  test('an invalid ledger is refused naming the file and the field', async () => {
    const file = path.join(tmp, 'bad.json');
    writeFileSync(file, JSON.stringify({ schema: 'heldout/rounds@1', commission: 'c', rounds: [{ round: 0 }] }));
    await expect(readLedger(file)).rejects.toThrow(/bad\.json: invalid round ledger: rounds\.0\.round/);
    const l = recordRound(emptyLedger('c'), entry(1), 5).ledger;
    writeFileSync(file, JSON.stringify({ ...l, rounds: [l.rounds[0], { ...l.rounds[0], round: 2 }] }));
    await expect(readLedger(file)).rejects.toThrow(/digest sha256:0+1 recorded twice/);
    writeFileSync(file, '{');
    await expect(readLedger(file)).rejects.toThrow(/bad\.json: not a round ledger/);
  });

  test('concurrent recorders under the lock lose no round', async () => {
    const file = path.join(tmp, 'busy.json');
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        withLedgerLock(file, async () => {
          const l = await readLedger(file, 'c');
          // A wide window between read and write: without the lock, recorders would overwrite one another.
          await new Promise((r) => setTimeout(r, 120));
          await writeLedger(file, recordRound(l, entry(i), 100).ledger);
        }),
      ),
    );
    const l = await readLedger(file, 'c');
    expect(l.rounds.map((r) => r.round)).toEqual(Array.from({ length: 6 }, (_, i) => i + 1));
    expect(new Set(l.rounds.map((r) => r.digest)).size).toBe(6);
    expect(readdirSync(tmp).filter((f) => f.startsWith('busy.json.'))).toEqual([]);
  });
});
