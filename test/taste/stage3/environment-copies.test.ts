import { describe, expect, it } from 'vitest';
import { createEnvironment, initialDb } from '../../../src/tau2/index.js';
import { domain } from '../../tau2/data.js';

/** τ²'s own `get_db_hash()` / `get_user_db_hash()` of the untouched databases (from its reference code). */
const TAU2_INITIAL = {
  airline: ['7d1714e959830778e6b38d63428b660ef6c9009261f0adaa178adb97bfb469d6', null],
  retail: ['b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c', null],
  telecom: [
    '304cf5ef059852e117ea801ab9a5efc24c9713ec887679dc2e30acceb4b6742d',
    'e1f3a8637388808221228ff3f87294444e6b64caf721f5eb243a85d0a9380b28',
  ],
} as const;

const FIRST_WRITE = {
  airline: ['cancel_reservation', { reservation_id: 'PGAGLM' }],
  retail: [
    'modify_user_address',
    { user_id: 'noah_brown_6181', address1: 'a', address2: 'b', city: 'c', state: 'd', country: 'e', zip: 'f' },
  ],
  telecom: ['refuel_data', { customer_id: 'C1001', line_id: 'L1002', gb_amount: 1 }],
} as const;

// Stage 3 creates hundreds of environments per run; each starts from the one validated database, copied on write.
describe('environments made for stage 3', () => {
  for (const name of ['airline', 'retail', 'telecom'] as const) {
    it(`${name}: each starts from τ²'s database (its hash), independent of every other`, async () => {
      const d = await domain(name);
      const [hash, userHash] = TAU2_INITIAL[name];
      const a = createEnvironment(d);
      const b = createEnvironment(d);
      expect([a.hash(), a.userHash()]).toEqual([hash, userHash]);
      expect(a.db).toEqual(initialDb(d));
      // The plain view is a reading: changing it changes nothing.
      (a.db as any)[Object.keys(a.db)[0]] = null;
      expect(a.hash()).toBe(hash);
      const [tool, args] = FIRST_WRITE[name];
      expect(a.call(tool, args)).toMatchObject({ ok: true });
      expect(a.hash()).not.toBe(hash);
      expect(Object.keys(a.changedRecords()).length).toBeGreaterThan(0);
      expect(b.hash()).toBe(hash);
      expect(b.changedRecords()).toEqual({});
      expect(createEnvironment(d).hash()).toBe(hash);
    });
  }
});
