import { defineConfig } from 'vitest/config';

// The project's own tests. Commission suites get their own Vitest project once the heldout plugin is wired in
// (see README "Running commissions under Vitest").
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
