import { defineConfig } from 'vitest/config';
import { hangDeadlineMs } from './test/helpers/deadlines.js';

// The project's own tests. `faults` holds tests that break shared infrastructure on purpose (they stop the Docker
// engine and restart it), so they run alone, after everything else.
// One deadline for every test and hook, there to end a hang, never to time a slow test: scaled to the machine's
// cores and load (test/helpers/deadlines.ts; HELDOUT_TEST_TIMEOUT_MS sets it, 0 for none). Tests set none of their own.
const hang = hangDeadlineMs();

export default defineConfig({
  test: {
    globalSetup: ['test/setup/engine-untouched.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/faults/**', 'test/clients/**'],
          testTimeout: hang,
          hookTimeout: hang,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          testTimeout: hang,
          hookTimeout: hang,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      // The large agent CLIs (test/clients/): `npm run test:clients` only, outside CI's `npm test` budget.
      ...(process.env.HELDOUT_CLIENT_CLIS === '1'
        ? [{ test: { name: 'clients', include: ['test/clients/**/*.test.ts'], testTimeout: hang, hookTimeout: hang } }]
        : []),
    ],
  },
});
